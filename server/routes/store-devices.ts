// The owner's calls about a store's devices (docs/product.md §11): add (with its pairing code), list,
// rename, revoke. Registered in the signed-in scope (bearer token); only an owner or a manager of the
// store may use them (docs/product.md §15): staff, strangers and a store that does not exist get 403 alike.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import {
  DeviceParams,
  DevicesAnswer,
  ErrorBody,
  NewDeviceAnswer,
  NewDeviceRequest,
  RenameDeviceRequest,
  UsageParams,
} from '../../contract/api.ts'
import { addDevice } from '../devices/pairing.ts'
import { listDevices, renameDevice, revokeDevice } from '../devices/registry.ts'
import { ApiError, messages } from '../errors.ts'
import { rateLimited } from '../rate-limit.ts'
import { keptName } from '../validation.ts'

const trimmed = (name: string) => keptName(name, messages.deviceName)

export const deviceOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // On the id as validated (the schema reads `1e3` as 1000: a check on the raw text would miss it).
  app.addHook('preHandler', async (request) => {
    const { id } = request.params as { id: number }
    if (!(await app.storeAccess.mayManage(request.userId, id))) throw new ApiError(403, messages.ownerOnly)
  })

  app.post(
    '/store/:id/devices',
    {
      schema: {
        summary: 'Add a device to the store and get its pairing code (owners and managers)',
        description:
          'The code is single use, bound to this store, and expires in 10 minutes; the device trades it for its key with POST /api/v0/device/pair.',
        params: UsageParams,
        body: NewDeviceRequest,
        response: {
          201: NewDeviceAnswer,
          403: ErrorBody,
          429: {
            ...ErrorBody,
            description: 'Too many devices added to this store in the last hour (Retry-After)',
          },
        },
      },
    },
    async (request, reply) => {
      const now = app.now()
      const added = await addDevice(app.db, {
        storeId: request.params.id,
        name: trimmed(request.body.name),
        now,
        perHour: app.config.limits.devicesAddedPerStorePerHour,
      })
      if (!added.ok) throw rateLimited(added.refusal, now)
      return reply.code(201).send({
        id: added.id,
        name: added.name,
        pairingCode: added.pairingCode,
        expiresAt: added.expiresAt.toISOString(),
      })
    },
  )

  app.get(
    '/store/:id/devices',
    {
      schema: {
        summary: "The store's devices, oldest first (owners and managers)",
        description:
          'A state is not sent: a client derives it (docs/product.md §11): revoked (`revokedAt`), connected (seen within 3 heartbeats of 60 s), else disconnected.',
        params: UsageParams,
        response: { 200: DevicesAnswer, 403: ErrorBody },
      },
    },
    async (request) => ({ devices: await listDevices(app.db, request.params.id) }),
  )

  app.patch(
    '/store/:id/devices/:deviceId',
    {
      schema: {
        summary: 'Rename a device (owners and managers)',
        params: DeviceParams,
        body: RenameDeviceRequest,
        response: { 204: Type.Null(), 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      const { id, deviceId } = request.params
      if (!(await renameDevice(app.db, id, deviceId, trimmed(request.body.name))))
        throw new ApiError(404, messages.deviceNotFound)
      return reply.code(204).send(null)
    },
  )

  app.delete(
    '/store/:id/devices/:deviceId',
    {
      schema: {
        summary: 'Revoke a device: its key is refused at once, on every instance (owners and managers)',
        params: DeviceParams,
        response: { 204: Type.Null(), 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      const { id, deviceId } = request.params
      if (!(await revokeDevice(app.db, id, deviceId, app.now())))
        throw new ApiError(404, messages.deviceNotFound)
      return reply.code(204).send(null)
    },
  )
}
