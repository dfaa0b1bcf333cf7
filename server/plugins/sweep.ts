// What no request ever deletes, swept every hour and at start on every instance (a sweep another
// instance already made deletes nothing): old rate-limit events, forgotten sign-in locks and expired
// codes, old device batches and pairing codes, the old changes log, push subscriptions given up on, expired invites, the
// team's log lines older than a year.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { sweepDeviceState } from '../devices/sweep.ts'
import { sweepOldEvents } from '../rate-limit.ts'
import { sweepSignInState } from '../sign-in/sweep.ts'
import { sweepInvites } from '../team/invites.ts'
import { sweepTeamLog } from '../team/log.ts'
import { pruneChanges } from '../usage/changes.ts'

/** How often old rate-limit events, locks and codes are deleted. */
const sweepEveryMs = 60 * 60 * 1000

export const sweepPlugin = fp(
  async (app: FastifyInstance) => {
    const sweep = async () => {
      try {
        await sweepOldEvents(app.db, app.now())
        await sweepSignInState(app.db, app.now())
        await sweepDeviceState(app.db, app.now())
        await pruneChanges(app.db, app.now())
        await app.push.sweep(app.now())
        await sweepInvites(app.db, app.now())
        await sweepTeamLog(app.db, app.now())
      } catch (error) {
        app.log.error({ err: error }, 'sweep failed')
      }
    }
    const sweeper = setInterval(sweep, sweepEveryMs).unref()
    app.addHook('onReady', sweep)
    app.addHook('onClose', async () => clearInterval(sweeper))
  },
  { name: 'sweep', dependencies: ['database', 'push'] },
)
