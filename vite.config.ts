import { readFileSync } from 'node:fs'
import { tanstackRouter } from '@tanstack/router-plugin/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { type ManifestOptions, VitePWA } from 'vite-plugin-pwa'

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

export default defineConfig({
  define: { __APP_VERSION__: JSON.stringify(version) },
  plugins: [
    tanstackRouter({ target: 'react', autoCodeSplitting: true, quoteStyle: 'single', semicolons: false }),
    react(),
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
  server: {
    proxy: { '/api': apiTarget, '/images': apiTarget },
  },
  build: {
    manifest: true,
    target: 'es2022',
  },
})
