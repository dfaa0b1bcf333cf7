import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { constants as zlib } from 'node:zlib'
import { tanstackRouter } from '@tanstack/router-plugin/vite'
import react from '@vitejs/plugin-react'
import { defineConfig, normalizePath, type Plugin, type Rolldown } from 'vite'
import { compression, defineAlgorithm } from 'vite-plugin-compression2'
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

/**
 * A source file that a chunk rule below names, as the bundler's module id. A file renamed, moved or
 * removed stops the build here, instead of leaving a rule that silently matches nothing.
 */
function sourceFile(relative: string): string {
  const absolute = fileURLToPath(new URL(relative, import.meta.url))
  if (!existsSync(absolute)) {
    throw new Error(`vite.config.ts: a chunk rule names ${relative}, which does not exist; update the rule.`)
  }
  return normalizePath(absolute)
}

/** A module id without its query (`?tsr-split=component`). */
const modulePath = (id: string) => id.split('?')[0] ?? id

/** The signed-in layout route and the routes under it, whose split chunks always load together. */
const signedInLayout = sourceFile('src/routes/_authed.tsx')
/** The sales screen's route; the stores overview (`_authed/stores.tsx`) is a chunk of its own. */
const salesRoute = sourceFile('src/routes/_authed/index.tsx')
/** The query client, which only the signed-in screens load (the login screen never does). */
const queryClient = sourceFile('src/lib/query-client.ts')
const isSignedInSplit = (id: string) =>
  /[?&]tsr-split/.test(id) && (modulePath(id) === signedInLayout || modulePath(id) === salesRoute)
const isSignedInLoader = (id: string) => isSignedInSplit(id) || modulePath(id) === queryClient
/** The stores overview's route: what it shares with the sales screen stays in `signed-in`; what only it loads is its own. */
const storesRoute = sourceFile('src/routes/_authed/stores.tsx')
const isStoresSplit = (id: string) => /[?&]tsr-split/.test(id) && modulePath(id) === storesRoute
/** The owner's devices screen: its own chunk, like the overview's. */
const devicesRoute = sourceFile('src/routes/_authed/devices.tsx')
const isDevicesSplit = (id: string) => /[?&]tsr-split/.test(id) && modulePath(id) === devicesRoute
/** Code the sales screen imports on demand, which only ever runs once `signed-in` has loaded. */
const onDemandBySignedIn = [
  sourceFile('src/workers/bucket-records.ts'),
  sourceFile('src/features/sales/export-csv.ts'),
]
/** Vite's preload helper, which every page's start needs (Rolldown's runtime keeps a file of its own). */
const isPreloadHelper = (id: string) => /^\0vite\/preload-helper/.test(id)
/** The buckets module (their shape and calendar helpers): the sales screen, the overview and the code above share it. */
const buckets = sourceFile('src/workers/buckets.ts')

/** This app's modules that every page needs at start, kept in the `app` chunk with the libraries. */
const startSourceNames = [
  'src/config.ts',
  'src/lib/api.ts',
  'src/lib/session-state.ts',
  'src/features/auth/session.ts',
  'src/lib/tokens.ts',
  'src/lib/page.ts',
  'src/lib/problem.ts',
  'src/lib/kept-totals.ts',
  'src/lib/sign-in-storage.ts',
  // The clock, and the sales screen's address that the route reads with it (the first painter has its own copies).
  'src/figures/clock.ts',
  'src/figures/sales-search.ts',
  // The login screen and the signed-in screens share them: a file of their own would be one more request.
  'src/lib/early-usage.ts',
  'contract/usage-compact-type.ts',
]
const startSources = startSourceNames.map(sourceFile)
const startLibraries =
  /node_modules[\\/](react|react-dom|scheduler|preact|@tanstack[\\/](react-router|router-core|history|store|react-store)|use-sync-external-store|zustand|js-cookie|cookie-es|seroval)[\\/]/

/**
 * A code-splitting group of the modules that load only with the modules `loader` accepts (route
 * chunks): no page's start, no other dynamic import needs them. Left to itself the bundler would cut
 * those route chunks' shared code into many small files, each a request and a worse compression ratio.
 */
function onlyLoadedBy(
  loader: (id: string) => boolean,
  chunkName: string,
  /** Loaders that may share the group's modules without taking them (a route chunk of its own). */
  alsoLoadedBy: (id: string) => boolean = () => false,
): Rolldown.CodeSplittingNameFunction {
  /** The modules whose loading brings `id` with it: an entry or a dynamic import, reached through static imports. */
  const loadedWith = (id: string, info: Rolldown.ChunkingContext): string[] => {
    const loaders: string[] = []
    const seen = new Set([id])
    const queue = [id]
    for (const current of queue) {
      const module = info.getModuleInfo(current)
      if (!module) continue
      if (module.isEntry || module.dynamicImporters.length > 0) loaders.push(current)
      for (const importer of module.importers.filter((importer) => !seen.has(importer))) {
        seen.add(importer)
        queue.push(importer)
      }
    }
    return loaders
  }
  return (id, info) => {
    const loaders = loadedWith(id, info)
    return loaders.some(loader) && loaders.every((id) => loader(id) || alsoLoadedBy(id)) ? chunkName : null
  }
}

/**
 * Fails the build when a chunk rule no longer does its job: a named chunk is missing, or a module a
 * rule is there for ended up elsewhere (moved out of the module graph, or caught by another rule).
 */
function checkChunkRules(
  expected: Record<string, { what: string; test: (id: string) => boolean }[]>,
): Plugin {
  return {
    name: 'check-chunk-rules',
    apply: 'build',
    generateBundle(_, bundle) {
      for (const [chunkName, modules] of Object.entries(expected)) {
        const ids = Object.values(bundle).flatMap((output) =>
          output.type === 'chunk' && output.name === chunkName ? output.moduleIds : [],
        )
        for (const { what, test } of modules) {
          if (!ids.some(test))
            this.error(`vite.config.ts: the "${chunkName}" chunk rule no longer holds ${what}.`)
        }
      }
    },
  }
}

/** The chunks of a build, as index.html's transforms see them. */
const builtChunks = (bundle: Rolldown.OutputBundle | undefined) =>
  Object.values(bundle ?? {}).filter((output): output is Rolldown.OutputChunk => output.type === 'chunk')

/** The login screen's route, whose chunk index.html preloads: a device that is not signed in needs it first. */
const loginRoute = sourceFile('src/routes/login.tsx')

/**
 * Preloads the login screen's chunk from index.html. Left to the router it is asked for only once the
 * app's code has run, a round trip (400 ms on a 3G line) after everything else has arrived.
 */
function preloadLoginScreen(): Plugin {
  return {
    name: 'preload-login-screen',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        const chunks = builtChunks(bundle).filter((chunk) =>
          chunk.moduleIds.some((id) => /[?&]tsr-split/.test(id) && modulePath(id) === loginRoute),
        )
        if (chunks.length === 0) throw new Error('vite.config.ts: no chunk holds the login screen to preload')
        return chunks
          .flatMap((chunk) => [chunk.fileName, ...chunk.imports])
          .filter((fileName, index, all) => all.indexOf(fileName) === index && !html.includes(fileName))
          .map((fileName) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `/${fileName}` },
            injectTo: 'head' as const,
          }))
      },
    },
  }
}

/**
 * The script that shows what index.html paints before the app runs (the login form to a signed-out
 * visitor, the totals last shown on a repeat visit): an entry of its own (see below).
 */
const paintFirst = sourceFile('src/paint-first.ts')

/** The id of a module's copy that only the first painter loads. */
const painterCopy = '?painter'

/**
 * Builds what the first painter imports into it, a copy of its own: a module it shared with the app
 * would be put in a chunk of its own, which a classic script cannot load. Its imports, and theirs,
 * resolve to the same files as `file.ts?painter`, modules that only the painter loads (so the bundler
 * inlines them). Only tiny pure modules belong there (src/figures/clock.ts and sales-search.ts): they run
 * before anything else on every page. The painter is then wrapped in a function of its own, since a
 * classic script's top-level names (those modules' among them) would land on `window`.
 */
function inlineIntoFirstPainter(): Plugin {
  return {
    name: 'inline-into-first-painter',
    apply: 'build',
    // Before Vite's own resolver, which would answer first.
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!importer || (importer !== paintFirst && !importer.endsWith(painterCopy))) return null
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true })
      return resolved && !resolved.external ? `${resolved.id}${painterCopy}` : resolved
    },
    renderChunk(code, chunk) {
      return chunk.isEntry && chunk.facadeModuleId === paintFirst ? `(()=>{${code}})();` : null
    },
  }
}

/**
 * Loads the first painter from index.html as a classic script of its own, which runs while the
 * page is parsed, before the app's modules (measured: 0.4-0.8 s to the totals on 3G, against 0.7-1.3 s as
 * an async module). A module script written into index.html would be bundled with the app's entry and
 * wait for all of it. It must load nothing (what it imports is built into it, inlineIntoFirstPainter),
 * and export nothing (a classic script has no exports).
 */
function loadFirstPainter(): Plugin {
  return {
    name: 'load-first-painter',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, { bundle }) {
        const painter = builtChunks(bundle).find(
          (chunk) => chunk.isEntry && chunk.facadeModuleId === paintFirst,
        )
        if (!painter) throw new Error('vite.config.ts: the first painter (src/paint-first.ts) was not built')
        if (painter.imports.length > 0 || painter.dynamicImports.length > 0)
          throw new Error(`vite.config.ts: the first painter imports ${painter.imports.join(', ')}`)
        return [
          {
            tag: 'script',
            attrs: { src: `/${painter.fileName}` },
            injectTo: 'body' as const,
          },
        ]
      },
    },
  }
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
  define: { __APP_VERSION__: JSON.stringify(version) },
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
    inlineIntoFirstPainter(),
    loadFirstPainter(),
    checkChunkRules({
      'signed-in': [
        { what: "the signed-in routes' split chunks", test: isSignedInSplit },
        { what: 'src/lib/query-client.ts', test: (id) => id === queryClient },
        { what: 'src/workers/buckets.ts', test: (id) => id === buckets },
      ],
      app: [
        ...startSources.map((file, i) => ({
          what: startSourceNames[i] ?? file,
          test: (id: string) => id === file,
        })),
        { what: 'the start-up libraries', test: (id: string) => startLibraries.test(id) },
        { what: "Vite's preload helper", test: isPreloadHelper },
      ],
    }),
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
    outDir: mode === 'preact' ? 'dist-preact' : 'dist',
    manifest: true,
    target: 'es2022',
    // Every browser this app supports has modulepreload; the polyfill would be dead weight.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      input: { index: sourceFile('index.html'), 'paint-first': paintFirst },
      output: {
        codeSplitting: {
          includeDependenciesRecursively: false,
          groups: [
            {
              // What the signed-in screens load, in one file: their route chunks always load together.
              name: onlyLoadedBy(
                isSignedInLoader,
                'signed-in',
                (id) => isStoresSplit(id) || isDevicesSplit(id) || onDemandBySignedIn.includes(id),
              ),
            },
            {
              // What every page needs at start, in one file rather than many small ones.
              name: 'app',
              test: (id: string) =>
                startLibraries.test(id) || startSources.includes(id) || isPreloadHelper(id),
            },
          ],
        },
      },
    },
  },
}))
