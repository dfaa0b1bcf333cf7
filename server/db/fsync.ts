// Fsyncs for what PGlite itself never syncs: a file or folder, or a whole tree of them.
import { open, readdir } from 'node:fs/promises'
import path from 'node:path'

/** Fsyncs one file or folder (a folder: so that a rename in it lasts). */
export async function fsyncPath(target: string) {
  const handle = await open(target, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Fsyncs every file and folder under `dir` (PGlite itself never does), 32 at a time. */
export async function fsyncTree(dir: string) {
  const paths: string[] = []
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) await walk(full)
      else if (entry.isFile()) paths.push(full)
    }
    paths.push(folder)
  }
  await walk(dir)
  for (let start = 0; start < paths.length; start += 32)
    await Promise.all(paths.slice(start, start + 32).map(fsyncPath))
}
