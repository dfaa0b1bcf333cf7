// What the browser downloads for a screen, read from Vite's build manifest: the entry chunk, the
// route's split chunks, everything they import statically, and the workers they start (dynamic
// imports load later, if ever).
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib'

interface ManifestChunk {
  file: string
  name?: string
  imports?: string[]
  css?: string[]
  /** Files a chunk refers to by URL; a Web Worker's script is one of them. */
  assets?: string[]
}
type Manifest = Record<string, ManifestChunk>

export interface ScreenSize {
  files: string[]
  js: { raw: number; gzip: number; brotli: number }
  css: { raw: number; gzip: number; brotli: number }
}

function readManifest(distDir: string): Manifest {
  return JSON.parse(readFileSync(path.join(distDir, '.vite', 'manifest.json'), 'utf8'))
}

/**
 * Manifest keys of a screen: the HTML entry, what loads at start anyway, and what the router loads
 * for the screen. That is named by route file (the chunks split out of it) or, where vite.config.ts
 * groups a screen's route chunks into one named chunk, by that chunk's name.
 */
function screenKeys(manifest: Manifest, routeChunks: string[], loadedAtStart: string[]) {
  const keys = ['index.html', ...loadedAtStart]
  for (const routeChunk of routeChunks) {
    const matches = Object.entries(manifest)
      .filter(([key, chunk]) =>
        routeChunk.includes('/')
          ? key === routeChunk || key.startsWith(`${routeChunk}?tsr-split`)
          : chunk.name === routeChunk && chunk.file.endsWith('.js'),
      )
      .map(([key]) => key)
    if (matches.length === 0) throw new Error(`${routeChunk} is not in the build manifest`)
    keys.push(...matches)
  }
  return keys
}

function sizes(distDir: string, files: string[]) {
  let raw = 0
  let gzip = 0
  let brotli = 0
  for (const file of files) {
    const bytes = readFileSync(path.join(distDir, file))
    raw += bytes.length
    gzip += gzipSync(bytes, { level: 9 }).length
    brotli += brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length
  }
  return { raw, gzip, brotli }
}

export function screenSize(distDir: string, routeChunks: string[], loadedAtStart: string[] = []): ScreenSize {
  const manifest = readManifest(distDir)
  const js = new Set<string>()
  const css = new Set<string>()
  const visit = (key: string) => {
    const chunk = manifest[key]
    if (!chunk) throw new Error(`${key} is not in the build manifest`)
    if (js.has(chunk.file)) return
    js.add(chunk.file)
    for (const file of chunk.css ?? []) css.add(file)
    for (const file of chunk.assets ?? []) if (file.endsWith('.js')) js.add(file)
    for (const imported of chunk.imports ?? []) visit(imported)
  }
  for (const key of screenKeys(manifest, routeChunks, loadedAtStart)) visit(key)
  return { files: [...js, ...css], js: sizes(distDir, [...js]), css: sizes(distDir, [...css]) }
}

export interface Budget {
  routes: Record<string, string[]>
  /** Dynamic imports every page makes at start (manifest keys). */
  loadedAtStart: string[]
  gzipJsBytes: Record<string, Record<string, number>>
}

export const readBudget = (): Budget => JSON.parse(readFileSync('budget.json', 'utf8'))
