// The service worker's push handlers (src/pwa/push-worker.ts): an entry of the build under a fixed name,
// `push-sw.js`, which the worker Workbox generates loads with importScripts (vite.config.ts). A classic
// script: wrapped so that nothing leaks into the worker's scope, and it must load nothing else.
import type { Plugin } from 'vite'
import { sourceFile } from './chunks.ts'

export const pushWorker = sourceFile('src/pwa/push-worker.ts')
export const pushWorkerFile = 'push-sw.js'

export function pushWorkerScript(): Plugin {
  return {
    name: 'push-worker-script',
    apply: 'build',
    renderChunk(code, chunk) {
      if (!(chunk.isEntry && chunk.facadeModuleId === pushWorker)) return null
      if (chunk.imports.length > 0 || chunk.dynamicImports.length > 0 || chunk.exports.length > 0)
        this.error(
          `build/push-worker.ts: ${pushWorkerFile} must import and export nothing (${chunk.imports.join(', ')})`,
        )
      return `(()=>{${code}})();`
    },
  }
}
