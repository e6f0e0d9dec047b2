/** Which paths a repo stores through LFS, read from `.gitattributes` as git does (the subset the Hub uses). */

/** The `.gitattributes` a new dataset repo gets on the Hub (its common patterns). */
export const DEFAULT_GITATTRIBUTES = [
  '*.7z',
  '*.arrow',
  '*.bin',
  '*.bz2',
  '*.ckpt',
  '*.ftz',
  '*.gz',
  '*.h5',
  '*.joblib',
  '*.lfs.*',
  '*.lz4',
  '*.mds',
  '*.mlmodel',
  '*.model',
  '*.msgpack',
  '*.npy',
  '*.npz',
  '*.onnx',
  '*.ot',
  '*.parquet',
  '*.pb',
  '*.pickle',
  '*.pkl',
  '*.pt',
  '*.pth',
  '*.rar',
  '*.safetensors',
  'saved_model/**/*',
  '*.tar.*',
  '*.tar',
  '*.tflite',
  '*.tgz',
  '*.wasm',
  '*.xz',
  '*.zip',
  '*.zst',
  '*tfevents*',
  '# Audio files - uncompressed',
  '*.pcm',
  '*.sam',
  '*.raw',
  '# Audio files - compressed',
  '*.aac',
  '*.flac',
  '*.mp3',
  '*.ogg',
  '*.wav',
  '# Image files - uncompressed',
  '*.bmp',
  '*.gif',
  '*.png',
  '*.tiff',
  '# Image files - compressed',
  '*.jpg',
  '*.jpeg',
  '*.webp',
  '# Video files - compressed',
  '*.mp4',
  '*.webm',
]
  .map((p) => (p.startsWith('#') ? p : `${p} filter=lfs diff=lfs merge=lfs -text`))
  .join('\n')
  .concat('\n')

function globToRegExp(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` is zero or more whole folders; a bare `**` anything
      const slash = glob[i + 2] === '/'
      re += slash ? '(?:.*/)?' : '.*'
      i += slash ? 2 : 1
    } else if (c === '*') re += '[^/]*'
    else if (c === '?') re += '[^/]'
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}

/** The patterns marked `filter=lfs`; a pattern without a slash matches the file name at any depth. */
export function lfsPatterns(gitattributes: string): RegExp[] {
  const out: RegExp[] = []
  for (const line of gitattributes.split('\n')) {
    const [pattern, ...attrs] = line.trim().split(/\s+/)
    if (!pattern || pattern.startsWith('#') || !attrs.includes('filter=lfs')) continue
    out.push(globToRegExp(pattern.includes('/') ? pattern.replace(/^\//, '') : `**/${pattern}`))
  }
  return out
}

export function tracksAsLfs(path: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((re) => re.test(path))
}
