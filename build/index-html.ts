// What the build does to index.html and to the first painter, the classic script it loads before the
// app's modules: the login screen's chunk preloaded, the painter built into one file that loads nothing,
// and its script tag. vite.config.ts wires these plugins in.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Plugin, Rolldown } from 'vite'
import { modulePath, sourceFile } from './chunks.ts'

/** The chunks of a build, as index.html's transforms see them. */
const builtChunks = (bundle: Rolldown.OutputBundle | undefined) =>
  Object.values(bundle ?? {}).filter((output): output is Rolldown.OutputChunk => output.type === 'chunk')

/** The login screen's route, whose chunk index.html preloads: a device that is not signed in needs it first. */
const loginRoute = sourceFile('src/routes/login.tsx')

/**
 * Preloads the login screen's chunk from index.html. Left to the router it is asked for only once the
 * app's code has run, a round trip (400 ms on a 3G line) after everything else has arrived.
 */
export function preloadLoginScreen(): Plugin {
  return {
    name: 'preload-login-screen',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        const chunks = builtChunks(bundle).filter((chunk) =>
          chunk.moduleIds.some((id) => /[?&]tsr-split/.test(id) && modulePath(id) === loginRoute),
        )
        if (chunks.length === 0)
          throw new Error('build/index-html.ts: no chunk holds the login screen to preload')
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
export const paintFirst = sourceFile('src/shell/paint-first.ts')

/** The id of a module's copy that only the first painter loads. */
const painterCopy = '?painter'

/**
 * What the first painter may have built into it: tiny pure modules, importing nothing but each other,
 * that run before anything else on every page (the names it shares with the app, the phone rule, the
 * clock and the sales screen's address). Anything else it imports stops the build; types cost nothing.
 */
const builtIntoPainterNames = [
  'src/shell/names.ts',
  'src/shell/cookies.ts',
  'contract/phone.ts',
  'src/figures/clock.ts',
  'src/figures/sales-search.ts',
]
const builtIntoPainter = builtIntoPainterNames.map(sourceFile)

/**
 * Builds what the first painter imports into it, a copy of its own: a module it shared with the app
 * would be put in a chunk of its own, which a classic script cannot load. Its imports, and theirs,
 * resolve to the same files as `file.ts?painter`, modules that only the painter loads (so the bundler
 * inlines them). Only the tiny pure modules listed above belong there. The painter is then wrapped in a function of its own, since a
 * classic script's top-level names (those modules' among them) would land on `window`.
 */
export function inlineIntoFirstPainter(): Plugin {
  return {
    name: 'inline-into-first-painter',
    apply: 'build',
    // Before Vite's own resolver, which would answer first.
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!importer || (importer !== paintFirst && !importer.endsWith(painterCopy))) return null
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true })
      if (!resolved || resolved.external || !builtIntoPainter.includes(resolved.id)) {
        this.error(
          `build/index-html.ts: the first painter imports ${source}, which is not one of the modules built into it (${builtIntoPainterNames.join(', ')}).`,
        )
      }
      return `${resolved.id}${painterCopy}`
    },
    renderChunk(code, chunk) {
      return chunk.isEntry && chunk.facadeModuleId === paintFirst ? `(()=>{${code}})();` : null
    },
  }
}

/** The id of the first painter's script in index.html, and of the inert element right after it. */
const painterId = 'paint-first'
const paintedId = 'painted'

/**
 * Writes the first painter into index.html, right after #root, and moves the app's module script and
 * the chunks it preloads into the painter's hands (its `data-app` and `data-preload`): the parser runs
 * it as soon as #root is read, it paints there and then, and starts the app after the frame that shows
 * the kept totals (paint-first.ts); a render-blocking `<link rel="expect">` keeps the page from
 * rendering a frame before it has run. From the head it waited for #root behind a mutation observer,
 * and painted at the end of the parse; from a file of its own at the end of the body, its answer from
 * the service worker's cache came behind the app's chunk, which the browser compiles as soon as it has
 * arrived (a third of a second and more on a slow phone); inline but with the app's tags in the page,
 * the parser compiled the app's chunk on reaching its tag, before #root. Inline, the server's content
 * security policy names its hash (server/plugins/security-headers.ts reads it from index.html). Its file
 * stays in the build (npm run budget counts its bytes). A module script written into index.html would
 * be bundled with the app's entry and wait for all of it. It must load nothing (what it imports is
 * built into it, inlineIntoFirstPainter), and export nothing.
 */
export function loadFirstPainter(): Plugin {
  return {
    name: 'load-first-painter',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        const painter = builtChunks(bundle).find(
          (chunk) => chunk.isEntry && chunk.facadeModuleId === paintFirst,
        )
        if (!painter)
          throw new Error('build/index-html.ts: the first painter (src/shell/paint-first.ts) was not built')
        if (painter.imports.length > 0 || painter.dynamicImports.length > 0)
          throw new Error(`build/index-html.ts: the first painter imports ${painter.imports.join(', ')}`)
        if (/<\/script/i.test(painter.code))
          throw new Error('build/index-html.ts: the first painter cannot be written into index.html as it is')
        // The app's module script and the chunks it preloads: the painter starts them (paint-first.ts).
        const app = /\s*<script type="module" crossorigin src="([^"]+)"><\/script>/.exec(html)
        if (!app?.[1]) throw new Error("build/index-html.ts: index.html has no app's script")
        const preloads = [...html.matchAll(/\s*<link rel="modulepreload" crossorigin href="([^"]+)">/g)]
        let page = html.replace(app[0], '')
        for (const [tag] of preloads) page = page.replace(tag, '')
        const root = /<div id="root"><\/div>/.exec(page)
        if (!root) throw new Error('build/index-html.ts: index.html has no #root to paint at')
        const at = root.index + root[0].length
        const attributes = `id="${painterId}" data-app="${app[1]}" data-preload="${preloads.map(([, href]) => href).join(' ')}"`
        // The page renders nothing before the painter has run: a frame painted between #root and the
        // painter costs a slow phone's main thread a frame, and shows less. The expected element follows
        // the painter (the parser reaches it only once the painter has run): Chromium let a frame
        // render once the painter's start tag was read, before its code had arrived (a trace).
        const expect = `<link rel="expect" href="#${paintedId}" blocking="render" />`
        const head = page.indexOf('</head>')
        if (head < 0) throw new Error('build/index-html.ts: index.html has no head')
        return `${page.slice(0, head)}  ${expect}\n  ${page.slice(head, at)}\n    <script ${attributes}>${painter.code.trim()}</script><template id="${paintedId}"></template>${page.slice(at)}`
      },
    },
  }
}

/**
 * Writes the app's stylesheet into index.html as a `<style>`: a linked one is render-blocking, and on a
 * repeat visit the parser waited at `<body>` for it to come back from the service worker (a trace of
 * the throttled bench), while the page itself was already there. Inline, the first frame needs nothing
 * but index.html, on the first visit too (a 3G round trip less). Its file stays in the build (the
 * budget counts it); the server's content security policy names the block's hash
 * (server/plugins/security-headers.ts reads it from index.html). Lazy screens' stylesheets are linked
 * by their chunks as before.
 */
export function inlineStylesheet(): Plugin {
  return {
    name: 'inline-stylesheet',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        const links = [...html.matchAll(/<link rel="stylesheet" crossorigin href="\/([^"]+\.css)">/g)]
        if (links.length !== 1)
          throw new Error(`build/index-html.ts: index.html links ${links.length} stylesheets, not one`)
        const [tag, fileName = ''] = links[0] as RegExpMatchArray
        const asset = bundle?.[fileName]
        if (asset?.type !== 'asset') throw new Error(`build/index-html.ts: ${fileName} is not in the build`)
        const css = typeof asset.source === 'string' ? asset.source : new TextDecoder().decode(asset.source)
        if (/<\/style/i.test(css))
          throw new Error('build/index-html.ts: the stylesheet cannot be written into index.html')
        return html.replace(tag, () => `<style>${css.trim()}</style>`)
      },
    },
  }
}

/** The header's logo, which index.html shows as an image of this file and the build writes in inline. */
const logoFile = 'logo.svg'

/**
 * Writes the login screen's header logo into index.html as inline SVG (`public/logo.svg`, without its
 * title and comments), an image named `Logo` (role `img`, `aria-label`): as an `<img>`, the browser
 * built an SVG document of its own for it (about 45 ms of a slow phone's main thread, a trace of the
 * throttled bench's repeat visit) before the page's first frame, and painted it apart. The signed-in
 * header, drawn later, still loads the file.
 */
export function inlineLogo(): Plugin {
  let publicDir = ''
  return {
    name: 'inline-logo',
    configResolved(config) {
      publicDir = config.publicDir
    },
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        const images = [...html.matchAll(new RegExp(`<img src="/${logoFile}"([^>]*?)\\s*/?>`, 'g'))]
        if (images.length !== 1 || !images[0])
          throw new Error(
            `build/index-html.ts: index.html shows /${logoFile} ${images.length} times, not once`,
          )
        const [tag, attributes = ''] = images[0]
        const alt = /\salt="([^"]*)"/.exec(attributes)?.[1]
        if (!alt) throw new Error(`build/index-html.ts: index.html's /${logoFile} has no alt text`)
        const svg = readFileSync(path.join(publicDir, logoFile), 'utf8')
          .replace(/<!--[\s\S]*?-->/g, '')
          .replace(/<title>[\s\S]*?<\/title>/g, '')
          .replace(/>\s+</g, '><')
          .trim()
        if (!/^<svg\s[^>]*>[\s\S]*<\/svg>$/.test(svg) || /<(script|style|text|foreignObject)\b/i.test(svg))
          throw new Error(
            `build/index-html.ts: public/${logoFile} cannot be written into index.html as it is`,
          )
        // The image's own attributes but its source and text (its size, its language) go on the SVG.
        const kept = attributes.replace(/\s(src|alt|width|height)="[^"]*"/g, '')
        const inline = svg
          .replace(/\sxmlns="[^"]*"/, '')
          .replace(/^<svg/, `<svg role="img" aria-label="${alt}"${kept}`)
        return html.replace(tag, () => inline)
      },
    },
  }
}
