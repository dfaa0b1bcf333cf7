// The one global of the platforms that domain/ uses beyond the language itself: structuredClone, which
// browsers, their workers and Node (17 and later) all have, while tsconfig.domain.json gives domain/
// neither the DOM's types nor Node's. Nothing else may be declared here.
declare function structuredClone<T>(value: T): T
