// The e2e-only accounts of tests/e2e/machines.spec.ts (and, the same way, of team-money.spec.ts): an
// owner of one store without any sale, and a staff member of it, so that the machines section's figures and the tax export hold only the sales
// the spec posts (whatever the demo data holds and the other specs post elsewhere). Created with the
// real admin commands (server/admin.ts) on the data directory before the server starts, after the
// demo seed (quiet-stores-data.ts runs it).
import path from 'node:path'
import { runAdmin } from '../../server/admin.ts'
import { openDatabase } from '../../server/db/client.ts'
import {
  machinesOwner,
  machinesStaff,
  machinesStoreName,
  messagesOwner,
  messagesStoreName,
  moneyOwner,
  moneyStaff,
  moneyStoreName,
} from './helpers.ts'

export async function addMachinesAccount(dataDir: string) {
  const database = await openDatabase({ pgliteDir: path.join(dataDir, 'pglite'), sharedBuffers: '16MB' })
  const output: string[] = []
  const admin = async (...args: string[]) => {
    const code = await runAdmin(args, {
      db: database.db,
      imageDir: path.join(dataDir, 'images'),
      print: (line) => output.push(line),
    })
    if (code !== 0) throw new Error(`admin ${args.join(' ')} failed:\n${output.join('\n')}`)
    return output.at(-1) ?? ''
  }
  try {
    // The machines spec's store, and tests/e2e/team-money.spec.ts's, whose owner hides money from its staff.
    for (const [owner, ownerName, staff, staffName, store] of [
      [machinesOwner, '기계사장', machinesStaff, '기계직원', machinesStoreName],
      [moneyOwner, '금액사장', moneyStaff, '금액직원', moneyStoreName],
    ] as const) {
      await admin('add-user', owner, ownerName)
      await admin('add-user', staff, staffName)
      const id = (await admin('add-store', store)).match(/^store (\d+) added$/)?.[1]
      if (!id) throw new Error(`add-store ${store}: ${output.join('\n')}`)
      await admin('grant', owner, id, '--role', 'owner')
      await admin('grant', staff, id, '--role', 'staff')
    }
    // The 알림톡 spec's owner (messages.spec.ts), of a store of their own: no other spec's heartbeats.
    await admin('add-user', messagesOwner, '알림사장')
    const messagesId = (await admin('add-store', messagesStoreName)).match(/^store (\d+) added$/)?.[1]
    if (!messagesId) throw new Error(`add-store ${messagesStoreName}: ${output.join('\n')}`)
    await admin('grant', messagesOwner, messagesId, '--role', 'owner')
  } finally {
    await database.close()
  }
}
