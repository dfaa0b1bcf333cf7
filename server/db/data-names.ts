// The names of what the embedded database writes, with no imports: the database's folder in DATA_DIR
// and what lies beside it (its lock, a restore's folders), and the snapshots in SNAPSHOT_DIR. The
// snapshot module writes them; the start-up permissions (files.ts) and the served folders' refusal
// (config.ts) recognise them; none of them spells a name of its own.

/** The embedded database's folder in DATA_DIR. */
export const embeddedFolderName = 'pglite'

/** What lies beside the database's folder: pglite.lock, pglite.restoring, pglite.before-restore-…. */
export const isBesideEmbedded = (name: string) => name.startsWith(`${embeddedFolderName}.`)

/** The database's folder, or what lies beside it. */
export const isEmbeddedOrBeside = (name: string) => name === embeddedFolderName || isBesideEmbedded(name)

/** The folder a restore unpacks into, beside the database; renamed to the database's name when done. */
export const restoringFolder = (embeddedDir: string) => `${embeddedDir}.restoring`

/** The name a restore keeps the database it replaces under, beside it (never deleted), but for the time. */
export const keptAsidePrefix = (embeddedDir: string) => `${embeddedDir}.before-restore-`

/** The mark of an embedded database in use, beside it (generation.ts): still there, it was not closed cleanly. */
export const inUseMarkerName = (embeddedDir: string) => `${embeddedDir}.in-use`

/** A time as the names of snapshots and of folders kept aside carry it: 20261123T054800000Z. */
export const stamp = (date: Date) => date.toISOString().replace(/[-:.]/g, '')

/** A snapshot's file name in SNAPSHOT_DIR, for the time it was taken. */
export const snapshotName = (date: Date) => `${embeddedFolderName}-${stamp(date)}.tar.gz`
export const snapshotNamePattern = /^pglite-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z\.tar\.gz$/

/** The file a snapshot is written to before it is renamed to its name. */
export const snapshotTemporaryName = (name: string) => `.${name}.tmp`
export const isSnapshotTemporary = (name: string) =>
  name.startsWith(`.${embeddedFolderName}-`) && name.endsWith('.tmp')

/** A snapshot, or one being written (or left by a crash while it was). */
export const isSnapshotFile = (name: string) =>
  name.startsWith(`${embeddedFolderName}-`) || name.startsWith(`.${embeddedFolderName}-`)
