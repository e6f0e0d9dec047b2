// A worker thread's entry when the builder runs from src/ (through tsx): Node gives a
// worker none of its parent's loaders, so this registers tsx in the thread, then loads
// the TypeScript module named in workerData.entry. From dist/ workers load their .js directly.
import { workerData } from 'node:worker_threads'

const { register } = await import('tsx/esm/api')
register()
await import(workerData.entry)
