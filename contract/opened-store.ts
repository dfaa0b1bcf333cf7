// The store a sign-in opens, one rule that the server and the web app both run: our server names it in
// the sign-in answer (`firstStoreId`, so that the app asks for its figures while it fetches the
// profile), and the app selects it when it takes in the profile and asks for its figures early. No
// imports, so that the app's bundle carries this function and nothing else of contract/.

/**
 * The store a sign-in opens: the first of the profile's stores, in the profile's order (the server's:
 * by id, docs/product.md decision 5); undefined when there is none. A remembered session whose selected
 * store the profile no longer lists falls back to the same store.
 */
export const storeSignInOpens = <S>(stores: readonly S[]): S | undefined => stores[0]
