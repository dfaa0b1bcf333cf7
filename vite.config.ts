import { readFileSync } from 'node:fs'
import { constants as zlib } from 'node:zlib'
import { tanstackRouter } from '@tanstack/router-plugin/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { compression, defineAlgorithm } from 'vite-plugin-compression2'
import { type ManifestOptions, VitePWA } from 'vite-plugin-pwa'
import { checkChunkRules, codeSplitting, sourceFile } from './build/chunks.ts'
import {
  inlineIntoFirstPainter,
  inlineLogo,
  inlineStylesheet,
  loadFirstPainter,
  paintFirst,
  preloadLoginScreen,
} from './build/index-html.ts'
import { pushWorker, pushWorkerFile, pushWorkerScript } from './build/push-worker.ts'
import { alertExampleDefines } from './src/features/alerts/alert-examples.ts'

// In development Vite serves the app with hot reload and hands the API and pictures to the server
// that `npm run dev` starts beside it.
const apiTarget = `http://localhost:${process.env.PORT ?? 3000}`
const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version
/** manifest.webmanifest at the root is the one source of the manifest (Vite would not serve it there). */
const manifest = JSON.parse(readFileSync('manifest.webmanifest', 'utf8')) as Partial<ManifestOptions>

/** Store and profile pictures, wherever VITE_IMAGE_BASE puts them, as a pattern for the service worker. */
function imagePattern() {
  const base = process.env.VITE_IMAGE_BASE?.trim() || '/images/'
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(/^https?:\/\//.test(base) ? `^${escaped}` : `^https?://[^/]+${escaped}`)
}

/**
 * `vite build --mode preact` builds the same app on Preact: react and react-dom resolve to
 * preact/compat (the code uses no React-only API), into dist-preact/.
 */
const preactAliases = [
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
  { find: /^react$/, replacement: 'preact/compat' },
]

/** TanStack Store asks for the shim of useSyncExternalStore, which only React < 18 needs. */
const sharedAliases = [
  {
    find: /^use-sync-external-store\/shim\/with-selector(\.js)?$/,
    replacement: 'use-sync-external-store/with-selector',
  },
]

export default defineConfig(({ mode }) => ({
  define: {
    __APP_VERSION__: JSON.stringify(version),
    // Each kind's example on the alerts screen, worded by domain/alert-texts.ts.
    ...alertExampleDefines(),
  },
  resolve: { alias: [...sharedAliases, ...(mode === 'preact' ? preactAliases : [])] },
  plugins: [
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      // Loaders too, so what the sales screen's loader needs is not downloaded for the login screen.
      codeSplittingOptions: {
        defaultBehavior: [['loader'], ['component'], ['errorComponent'], ['notFoundComponent']],
      },
      quoteStyle: 'single',
      semicolons: false,
    }),
    react(),
    preloadLoginScreen(),
    inlineStylesheet(),
    inlineLogo(),
    inlineIntoFirstPainter(),
    loadFirstPainter(),
    checkChunkRules(),
    pushWorkerScript(),
    // Compressed once at build, as hard as gzip and brotli go: the server sends these files as they are
    // (@fastify/static preCompressed), where compressing on the fly could afford only brotli level 4.
    compression({
      include: /\.(js|css|html|svg|webmanifest)$/,
      threshold: 1024,
      skipIfLargerOrEqual: true,
      logLevel: 'silent',
      algorithms: [
        defineAlgorithm('gzip', { level: 9 }),
        defineAlgorithm('brotliCompress', { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }),
      ],
    }),
    VitePWA({
      registerType: 'prompt',
      injectRegister: false,
      manifest,
      manifestFilename: 'manifest.webmanifest',
      // Icons (64, 192, 512, maskable), favicon and apple-touch-icon, generated from one image.
      pwaAssets: { image: 'public/icon.svg', preset: 'minimal-2023', overrideManifestIcons: false },
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,png,ico,webmanifest}'],
        navigateFallback: '/index.html',
        navigateFallbackDenylist: [/^\/api\//, /^\/images\//],
        cleanupOutdatedCaches: true,
        // The push and notification-click handlers (src/pwa/push-worker.ts, built as push-sw.js below).
        importScripts: [pushWorkerFile],
        // Sales data is never cached here: the app keeps its own buckets. Pictures are, for a while.
        runtimeCaching: [
          {
            urlPattern: imagePattern(),
            handler: 'StaleWhileRevalidate',
            options: {
              cacheName: 'images',
              expiration: { maxEntries: 100, maxAgeSeconds: 30 * 24 * 60 * 60 },
              cacheableResponse: { statuses: [0, 200] },
            },
          },
        ],
      },
    }),
  ],
  // The bucketing worker is a module (bucket-client.ts starts it with type: 'module'): ES output lets it
  // load the exact JSON path (bucket-exact.ts, date-fns) only for an answer that needs it.
  worker: { format: 'es' },
  server: {
    proxy: { '/api': apiTarget, '/images': apiTarget },
  },
  build: {
    outDir: mode === 'preact' ? 'dist-preact' : 'dist',
    manifest: true,
    target: 'es2022',
    // Every browser this app supports has modulepreload; the polyfill would be dead weight.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      input: { index: sourceFile('index.html'), 'paint-first': paintFirst, 'push-sw': pushWorker },
      output: {
        codeSplitting,
        // The push handlers keep one name: the generated service worker imports them by it.
        entryFileNames: (chunk) => (chunk.name === 'push-sw' ? pushWorkerFile : 'assets/[name]-[hash].js'),
      },
    },
  },
}))
