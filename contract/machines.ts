// The store's machines, payment methods and refunds (docs/product.md §14): the calls' types. Our server's
// addition to the original contract; the usage answer is unchanged (a refund is its negative amount).
import { type Static, Type } from 'typebox'

const Instant = Type.Union([Type.String(), Type.Null()])
/** No `sum` for a member the owner hides won amounts from (docs/product.md §15). */
const Totals = Type.Object({ sum: Type.Optional(Type.Integer()), count: Type.Integer() })

export const PaymentMethodSchema = Type.Union([
  Type.Literal('card'),
  Type.Literal('cash'),
  Type.Literal('coin'),
  Type.Literal('mobile'),
  Type.Literal('point'),
  Type.Literal('other'),
])
export const MachineKindSchema = Type.Union([
  Type.Literal('washer'),
  Type.Literal('dryer'),
  Type.Literal('other'),
])
export const MachineStateSchema = Type.Union([
  Type.Literal('idle'),
  Type.Literal('running'),
  Type.Literal('error'),
  Type.Literal('offline'),
])
export const TerminalStateSchema = Type.Union([Type.Literal('ok'), Type.Literal('down')])

/** A machine as a heartbeat reports it. */
export const MachineReport = Type.Object({
  machine: Type.String({ minLength: 1, maxLength: 64 }),
  kind: Type.Optional(MachineKindSchema),
  state: MachineStateSchema,
  /** The machine's error code with an `error` state, e.g. `E21`. */
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 16 })),
})
export type MachineReport = Static<typeof MachineReport>

export const MachinesQuery = Type.Object({
  year: Type.Integer({ minimum: 2000, maximum: 2100 }),
  month: Type.Integer({ minimum: 1, maximum: 12 }),
})

export const Machine = Type.Object({
  /** The devices' name for it (the key of the PATCH call). */
  machine: Type.String(),
  /** The owner's name for it, else `machine`. */
  name: Type.String(),
  /** The owner's kind, else the one its devices report, else `other`. */
  kind: MachineKindSchema,
  /** The state its devices last reported; null: never reported. */
  state: Type.Union([MachineStateSchema, Type.Null()]),
  stateSince: Instant,
  code: Type.Union([Type.String(), Type.Null()]),
  /** Its newest sale (not a refund) of any month (ISO 8601 in UTC); null: none. */
  lastSaleAt: Instant,
  /** The UTC month asked, net of refunds (as the usage answer counts them); count of sales, refunds not counted. */
  month: Totals,
  /** The dashboard's UTC day of `at` (zero outside the month asked), net of refunds. */
  today: Totals,
  /** The month's refunds made on it: their sum (negative) and count. */
  refunds: Totals,
  /**
   * What the machine-silent rule reads of it (domain/machine-silent.ts): its sales in the answer's
   * `historyDays` UTC days before the answer's day, and the sales of the other machines of its kind since
   * its last sale; `runs`, its runs in those days (the others' sales between two of its sales; runs[k]
   * reached 2^k). Absent from the answer of one machine (a rename).
   */
  silence: Type.Optional(
    Type.Object({
      historySales: Type.Integer(),
      othersSince: Type.Integer(),
      runs: Type.Optional(Type.Array(Type.Integer(), { maxItems: 16 })),
    }),
  ),
})
export type Machine = Static<typeof Machine>

export const MachinesAnswer = Type.Object({
  /** The instant the answer was computed (ISO 8601 in UTC). */
  at: Type.String(),
  machines: Type.Array(Machine),
  /** The month's sales by payment method, refunds not included; a sale without one counts as `other`. */
  methods: Type.Array(
    Type.Object({ method: PaymentMethodSchema, sum: Type.Optional(Type.Integer()), count: Type.Integer() }),
  ),
  /** The month's refunds of the whole store (every negative amount): their sum (negative) and count. */
  refunds: Totals,
  /** The days the machines' `silence.historySales` cover (fewer than 28 for a store younger than that). */
  historyDays: Type.Optional(Type.Integer()),
})
export type MachinesAnswer = Static<typeof MachinesAnswer>

export const MachineParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  machine: Type.String({ minLength: 1, maxLength: 64 }),
})

export const RenameMachineRequest = Type.Object(
  {
    /** 1–40 characters, not only spaces; null gives back the devices' name. */
    name: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 40, pattern: '\\S' }), Type.Null()]),
    ),
    /** null gives back the kind its devices report. */
    kind: Type.Optional(Type.Union([MachineKindSchema, Type.Null()])),
  },
  { additionalProperties: false },
)
export type RenameMachineRequest = Static<typeof RenameMachineRequest>

export const TaxExportQuery = Type.Object({
  from: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
  to: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
})
