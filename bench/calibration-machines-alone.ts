// The machine-silent rule's calibration alone (bench/calibration-machines*.ts), on the same stores and
// seeds as bench/calibration.ts: `npx tsx bench/calibration-machines-alone.ts` (CALIBRATION_STORES=1 for
// one store a class). Prints the table's lines, then the JSON.
import { HISTORY_WEEKS } from '../domain/quiet-model.ts'
import { demoStores } from '../server/db/seed.ts'
import { machineCalibration, machineRows } from './calibration-machines-report.ts'
import { seededRandom } from './calibration-model.ts'
import { demoStore, type SimulatedStore, simulatedStore } from './calibration-stores.ts'

const weekMs = 7 * 24 * 3_600_000
const from = Date.UTC(2025, 0, 6)
const scoredFrom = from + HISTORY_WEEKS * weekMs
const to = scoredFrom + 12 * weekMs
const storesPerClass = Number(process.env.CALIBRATION_STORES ?? 4)
const seed = 24

const started = Date.now()
const random = seededRandom(seed)
const stores: SimulatedStore[] = demoStores.map((store, index) =>
  demoStore(index + 1, store.cyclesPerDay, from, to),
)
for (const kind of ['poisson', 'visits'] as const)
  for (const perDay of [15, 30, 60, 90, 200])
    for (let index = 0; index < storesPerClass; index++)
      stores.push(simulatedStore(kind, perDay, { from, to, random, index }))
const machines = machineCalibration(stores, { from, scoredFrom, to }, seededRandom(seed + 1))
for (const [name, value] of machineRows(machines))
  if (name.startsWith('machine')) console.log(`${name}\n    ${value}`)
console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`)
console.log(JSON.stringify(machines))
