// The names the app and the first painter (paint-first.ts) must agree on: where the device keeps the
// session and the kept totals, the cookies the painter reads, what index.html and the painter put on
// the page, and the screens' paths. One file with no imports: the painter has it built in
// (build/index-html.ts), the app imports it. index.html and the route files cannot import it:
// tests/web/shell-names.test.ts compares them with it (and the element both scripts find in
// index.html, `#root`, which each names as Vite's template does: a name of its own here cost the
// login screen's bytes). styles.css names the two classes too.

/** Local storage: the user as the device remembers it (version 0; the spelling is the original product's). */
export const userStorageKey = 'user-sotre'
/** Local storage: the user's stores and the selected one (version 1). */
export const storesStorageKey = 'store-store'
/** Local storage: the totals the sales screen last showed, for the painter (kept-totals.ts). */
export const keptTotalsKey = 'laundry-kept-totals'

/** The cookies of a sign-in that the painter reads (lib/tokens.ts writes them, docs/product.md §3). */
export const refreshTokenCookie = 'refreshToken'
export const signInIdCookie = 'signInId'

/** index.html's login form, hidden until the painter shows it (login-shell.ts). */
export const loginShellSelector = '.login-shell'
/** The class of the kept totals the painter paints. */
export const keptTotalsClass = 'kept-totals'

/** The screens the painter paints for: the sales screen and the login screen. */
export const salesPath = '/'
export const loginPath = '/login'
