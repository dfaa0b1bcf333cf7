// The schedule: every instance evaluates the alert rules once a minute (the database decides what is
// sent, decision 102), the first time at start (decision 139: it loads the view of every store the stores
// overview answers from). Each evaluation records; the pushes go after it, apart: a slow push service
// delays the pushes, never the next minute's evaluation. One evaluation and one delivery at a time; an
// evaluation that ends while a delivery runs has it run once more after.
import type { FastifyBaseLogger } from 'fastify'
import type { AlertRules } from './evaluate.ts'

export function alertSchedule({
  rules,
  everyMs,
  now,
  log,
}: {
  rules: AlertRules
  /** 0: never by itself (tests evaluate when they choose). */
  everyMs: number
  now: () => Date
  log: FastifyBaseLogger
}) {
  let evaluating: Promise<unknown> | undefined
  let delivering: Promise<unknown> | undefined
  let again = false
  let stopped = false

  const deliver = () => {
    if (delivering) {
      again = true
      return
    }
    delivering = rules
      .deliver(now())
      .catch((error: unknown) => log.error({ err: error }, 'alert delivery failed'))
      .finally(() => {
        delivering = undefined
        if (again && !stopped) {
          again = false
          deliver()
        }
      })
  }

  /** One evaluation now (none when one is running), its pushes after it. */
  const tick = () => {
    evaluating ??= rules
      .record(now())
      .then(deliver)
      .catch((error: unknown) => log.error({ err: error }, 'alert evaluation failed'))
      .finally(() => {
        evaluating = undefined
      })
  }

  const timer = everyMs > 0 ? setInterval(tick, everyMs).unref() : undefined
  return {
    tick,
    /** The outbox pushed now, apart from the minute's evaluation (after a store's rules ran at a heartbeat). */
    deliver,
    /** Stops the minute loop and waits for the evaluation and delivery running. */
    async stop() {
      stopped = true
      clearInterval(timer)
      await evaluating
      await delivering
    },
  }
}
