// The store's machines (docs/product.md §14): their figures and states for members, an owner's name and
// kind for one, and the tax export of a range of Korean days for owners. Registered in the signed-in
// scope; who may do what is server/store-access.ts's answer: a stranger and a store that does not
// exist get 403 alike, as the other store calls.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { eq } from 'drizzle-orm'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ErrorBody, UsageParams } from '../../contract/api.ts'
import {
  Machine,
  MachineParams,
  MachinesAnswer,
  MachinesQuery,
  RenameMachineRequest,
  TaxExportQuery,
} from '../../contract/machines.ts'
import { stores } from '../db/schema.ts'
import { ApiError, handleError, messages } from '../errors.ts'
import { machinesAnswer, withoutMoney } from '../machines/answer.ts'
import { renameMachine } from '../machines/rename.ts'
import { taxCsv, taxDisposition } from '../machines/tax-csv.ts'
import { dayNumber, dayText, maxTaxDays, taxDays } from '../machines/tax-days.ts'
import { keptName } from '../validation.ts'

/** The Korean message of a field these calls read; the rest as every call answers them. */
const fieldMessages: Record<string, string> = {
  id: messages.storeId,
  year: messages.year,
  month: messages.month,
  name: messages.machineName,
  kind: messages.machineKind,
  from: messages.taxDate,
  to: messages.taxDate,
}

function machinesError(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) {
  if (!(error instanceof ApiError) && error.validation) {
    for (const issue of error.validation) {
      const params = issue.params as { missingProperty?: string }
      const field = params.missingProperty ?? issue.instancePath.split('/')[1] ?? ''
      // A name longer than any machine's cannot name one of this store's.
      if (field === 'machine') return reply.code(404).send({ message: messages.machineNotFound })
      const message = fieldMessages[field]
      if (message) return reply.code(400).send({ message })
    }
  }
  return handleError(error, request, reply)
}

/** The name as kept (null and absent as they are). */
const trimmedName = (name: string | null | undefined) =>
  typeof name === 'string' ? keptName(name, messages.machineName) : name

/**
 * The rename's body as sent, before validation: the validator's coercion would read `""` as null (a
 * reset) and `42` as a name, and drop an unknown field; each is refused here instead.
 */
function checkChangeAsSent(body: unknown) {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return
  const sent = body as Record<string, unknown>
  if (Object.keys(sent).some((key) => key !== 'name' && key !== 'kind'))
    throw new ApiError(400, messages.machineChange)
  const textOrNull = (value: unknown) =>
    value === undefined || value === null || (typeof value === 'string' && value !== '')
  if (!textOrNull(sent.name)) throw new ApiError(400, messages.machineName)
  if (!textOrNull(sent.kind)) throw new ApiError(400, messages.machineKind)
}

export const machinesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.setErrorHandler(machinesError)
  const ownerOf = async (request: FastifyRequest, storeId: number, message: string) => {
    if (!(await app.storeAccess.isOwner(request.userId, storeId))) throw new ApiError(403, message)
  }
  // A machine's name and kind: an owner's or a manager's (docs/product.md §15).
  const managerOf = async (request: FastifyRequest, storeId: number) => {
    if (!(await app.storeAccess.mayManage(request.userId, storeId)))
      throw new ApiError(403, messages.machinesOwnerOnly)
  }

  app.get(
    '/store/:id/machines',
    {
      schema: {
        summary:
          "The store's machines with the month's figures, its sales by payment method and refunds (members)",
        description:
          'Every machine of the store (washers, dryers, the rest; by name, numbers as numbers), each with its ' +
          "state as its devices last reported it, its newest sale, and the UTC month's net sum and sales counted, " +
          "the UTC day of `at`'s (zero when `at` is not in the month) and its refunds apart; `methods` lists all " +
          'six methods (zeros included), so `methods` plus `refunds` is the month net total (docs/product.md §14). ' +
          'For a staff member the owner hides won amounts from, every `sum` is left out (counts, turns and states stay; §15).',
        params: UsageParams,
        querystring: MachinesQuery,
        response: { 200: MachinesAnswer, 403: ErrorBody },
      },
    },
    async (request) => {
      const { id } = request.params
      const member = await app.storeAccess.memberOf(request.userId, id)
      if (!member) throw new ApiError(403, messages.forbidden)
      const { year, month } = request.query
      const answer = await machinesAnswer(app.db, { storeId: id, year, month, now: app.now() })
      // A member the owner hides won amounts from: turns and states, no sum (docs/product.md §15).
      return member.seesMoney ? answer : withoutMoney(answer)
    },
  )

  app.patch(
    '/store/:id/machines/:machine',
    {
      schema: {
        summary: "Set a machine's name or kind (owners and managers)",
        description:
          'An absent field stays, null gives back what the devices say. Answers the machine as GET …/machines ' +
          'shows it for the current UTC month.',
        params: MachineParams,
        body: RenameMachineRequest,
        response: { 200: Machine, 403: ErrorBody, 404: ErrorBody },
      },
      preValidation: async (request) => checkChangeAsSent(request.body),
    },
    async (request) => {
      const { id, machine } = request.params
      await managerOf(request, id)
      const change = { name: trimmedName(request.body.name), kind: request.body.kind }
      if (!(await renameMachine(app.db, id, machine, change)))
        throw new ApiError(404, messages.machineNotFound)
      const now = app.now()
      const answer = await machinesAnswer(app.db, {
        storeId: id,
        year: now.getUTCFullYear(),
        month: now.getUTCMonth() + 1,
        now,
        machine,
      })
      const [renamed] = answer.machines
      if (!renamed) throw new ApiError(404, messages.machineNotFound)
      return renamed
    },
  )

  app.get(
    '/store/:id/export/tax.csv',
    {
      schema: {
        summary: "The store's sales by Korean day for tax filing, as CSV (owners only)",
        description:
          'One row each Korean calendar day (KST, UTC+9) from `from` to `to` inclusive (at most 366 days), zeros ' +
          'included: 날짜, the sales by method (카드, 현금, 동전, 간편결제, 포인트, 기타; a sale without one is 기타), ' +
          '환불 (the negative sum), 순매출 (net), 건수 (sales counted, refunds not); then a 합계 row. UTF-8 with a BOM, ' +
          'CRLF lines; the file name says KST (docs/product.md §14, decision 173).',
        params: UsageParams,
        querystring: TaxExportQuery,
        response: {
          200: {
            description: 'The CSV file (Content-Disposition: attachment, its name in filename*)',
            content: { 'text/csv': { schema: Type.String() } },
          },
          403: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params
      await ownerOf(request, id, messages.taxOwnerOnly)
      const from = dayNumber(request.query.from)
      const to = dayNumber(request.query.to)
      if (from === undefined || to === undefined) throw new ApiError(400, messages.taxDate)
      if (from > to || to - from + 1 > maxTaxDays) throw new ApiError(400, messages.taxRange)
      const [store] = await app.db.select({ name: stores.name }).from(stores).where(eq(stores.id, id))
      const body = taxCsv(await taxDays(app.db, id, from, to))
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', taxDisposition(store?.name ?? '', dayText(from), dayText(to)))
        .send(body as unknown as string)
    },
  )
}
