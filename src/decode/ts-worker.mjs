// A worker thread's entry when the builder runs from src/ through tsx (the tests): Node gives a
// worker none of its parent's loaders, so this registers tsx in the thread, then loads the module
// named in workerData.entry. Compiled, workers load their .js directly and this file is not used.
import { workerData } from 'node:worker_threads'

const { register } = await import('tsx/esm/api')
register()
await import(workerData.entry)
