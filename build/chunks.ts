// This app's chunk policy: which of its modules go into which file of the build, and the check that
// the rules still do their job. vite.config.ts wires it in (`codeSplitting` and `checkChunkRules`).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { normalizePath, type Plugin, type Rolldown } from 'vite'

/**
 * A source file that a chunk rule below names, as the bundler's module id. A file renamed, moved or
 * removed stops the build here, instead of leaving a rule that silently matches nothing.
 */
export function sourceFile(relative: string): string {
  const absolute = fileURLToPath(new URL(`../${relative}`, import.meta.url))
  if (!existsSync(absolute)) {
    throw new Error(`build/chunks.ts: a chunk rule names ${relative}, which does not exist; update the rule.`)
  }
  return normalizePath(absolute)
}

/** A module id without its query (`?tsr-split=component`). */
export const modulePath = (id: string) => id.split('?')[0] ?? id

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
/** The alerts screen: its own chunk, like the devices screen's. */
const alertsRoute = sourceFile('src/routes/_authed/alerts.tsx')
const isAlertsSplit = (id: string) => /[?&]tsr-split/.test(id) && modulePath(id) === alertsRoute
/** The owner's team screen: its own chunk, like the devices screen's. */
const teamRoute = sourceFile('src/routes/_authed/team.tsx')
const isTeamSplit = (id: string) => /[?&]tsr-split/.test(id) && modulePath(id) === teamRoute
/** This browser's push subscription, which the signed-in layout loads on demand when alerts are allowed. */
const pushSubscription = sourceFile('src/features/alerts/push-subscription.ts')
/** The sales screen's machines section: its own chunk, loaded once the first figures show (decision 174). */
const machinesSection = sourceFile('src/features/sales/machines/machines-section.tsx')
/** Code the sales screen imports on demand, which only ever runs once `signed-in` has loaded. */
const onDemandBySignedIn = [
  sourceFile('src/workers/bucket-feed.ts'),
  // Its exact JSON path, which it loads on demand in turn (bucket-feed.ts).
  sourceFile('src/workers/bucket-exact.ts'),
  sourceFile('src/features/sales/export-csv.ts'),
  // The stores overview's query, which its route's loader asks for while the overview's chunk loads.
  sourceFile('src/features/stores/overview-live.ts'),
  // The machines section, which the sales screen asks for once its first figures show.
  machinesSection,
]
/** Vite's preload helper, which every page's start needs (Rolldown's runtime keeps a file of its own). */
const isPreloadHelper = (id: string) => /^\0vite\/preload-helper/.test(id)
/** The buckets' shape and their calendar: the sales screen, the overview and the code above share them. */
const buckets = sourceFile('domain/buckets.ts')
const calendar = sourceFile('domain/calendar.ts')

/** This app's modules that every page needs at start, kept in the `app` chunk with the libraries. */
const startSourceNames = [
  'src/config.ts',
  'src/lib/api.ts',
  'src/lib/session-state.ts',
  'src/features/auth/session.ts',
  'src/lib/tokens.ts',
  'src/lib/page.ts',
  'src/lib/problem.ts',
  // What runs before the app: the names it shares with the first painter, the kept totals, index.html's
  // login form (taken over by the login screen), the shell's removal.
  'src/shell/names.ts',
  'src/lib/kept-totals.ts',
  'src/shell/cookies.ts',
  'src/shell/login-shell.ts',
  'src/shell/remove-shell.ts',
  'src/lib/sign-in-storage.ts',
  // The store a sign-in opens, which the persisted state and the sign-in both run.
  'contract/opened-store.ts',
  // The clock, and the sales screen's address that the route reads with it (the first painter has its own copies).
  'src/figures/clock.ts',
  'src/figures/sales-search.ts',
  // The login screen and the signed-in screens share them: a file of their own would be one more request.
  'src/figures/year-request.ts',
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
function checkRules(expected: Record<string, { what: string; test: (id: string) => boolean }[]>): Plugin {
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
            this.error(`build/chunks.ts: the "${chunkName}" chunk rule no longer holds ${what}.`)
        }
      }
    },
  }
}

/** The build's code-splitting groups (Rolldown's `output.codeSplitting`). */
export const codeSplitting: Rolldown.OutputOptions['codeSplitting'] = {
  includeDependenciesRecursively: false,
  groups: [
    {
      // What the signed-in screens load, in one file: their route chunks always load together.
      name: onlyLoadedBy(
        isSignedInLoader,
        'signed-in',
        (id) =>
          isStoresSplit(id) ||
          isDevicesSplit(id) ||
          isAlertsSplit(id) ||
          isTeamSplit(id) ||
          id === pushSubscription ||
          onDemandBySignedIn.includes(id),
      ),
    },
    // The devices, the alerts and the team screens: each route's loader, its screen and what only they
    // load, in one file (the loader asks for the screen's query, which the screen reads next). What the
    // devices and the team screens share (lib/use-action.ts) is a small file of its own.
    { name: onlyLoadedBy(isDevicesSplit, 'devices') },
    { name: onlyLoadedBy(isAlertsSplit, 'alerts') },
    { name: onlyLoadedBy(isTeamSplit, 'team') },
    // The machines section and what only it loads (its rows, the tax export), in one file.
    { name: onlyLoadedBy((id) => id === machinesSection, 'machines') },
    {
      // What every page needs at start, in one file rather than many small ones.
      name: 'app',
      test: (id: string) => startLibraries.test(id) || startSources.includes(id) || isPreloadHelper(id),
    },
  ],
}

/** Fails the build when the rules above no longer put in `signed-in` and `app` what they are there for. */
export const checkChunkRules = () =>
  checkRules({
    'signed-in': [
      { what: "the signed-in routes' split chunks", test: isSignedInSplit },
      { what: 'src/lib/query-client.ts', test: (id) => id === queryClient },
      { what: 'domain/buckets.ts', test: (id) => id === buckets },
      { what: 'domain/calendar.ts', test: (id) => id === calendar },
    ],
    app: [
      ...startSources.map((file, i) => ({
        what: startSourceNames[i] ?? file,
        test: (id: string) => id === file,
      })),
      { what: 'the start-up libraries', test: (id: string) => startLibraries.test(id) },
      { what: "Vite's preload helper", test: isPreloadHelper },
    ],
  })
