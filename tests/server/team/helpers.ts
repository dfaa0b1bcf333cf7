// A store with its owner, a manager and staff, and a stranger's store, for the team's tests.
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { bearer, type TestApp } from '../test-app.ts'

export const phones = {
  owner: '01012345678',
  manager: '01022223333',
  staff: '01087654321',
  stranger: '01055556666',
  newcomer: '01099998888',
}

export async function team(app: TestApp) {
  const ids = {
    owner: await addUser(app.db, { phone: phones.owner, name: '김사장' }),
    manager: await addUser(app.db, { phone: phones.manager, name: '박점장' }),
    staff: await addUser(app.db, { phone: phones.staff, name: '이직원' }),
    stranger: await addUser(app.db, { phone: phones.stranger, name: '남' }),
  }
  const storeId = await addStore(app.db, { name: '역삼점' })
  const otherStoreId = await addStore(app.db, { name: '남의 매장' })
  await grant(app.db, phones.owner, storeId, 'owner')
  await grant(app.db, phones.manager, storeId, 'manager')
  await grant(app.db, phones.staff, storeId, 'staff')
  await grant(app.db, phones.stranger, otherStoreId, 'owner')
  const token = async (userId: number) => (await app.tokens.start(userId)).access
  return {
    storeId,
    otherStoreId,
    ids,
    owner: await token(ids.owner),
    manager: await token(ids.manager),
    staff: await token(ids.staff),
    stranger: await token(ids.stranger),
  }
}

/** One call of the signed-in API as `token`. */
export const call = (
  app: TestApp,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  token: string,
  payload?: object,
) => app.inject({ method, url: `/api/v0${url}`, headers: bearer(token), ...(payload ? { payload } : {}) })
