// The OpenAPI document of every call (@fastify/swagger), generated from the contract's schemas; served
// at GET /api/openapi.json (routes/api.ts).
import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

export const openapiPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        info: { title: 'Laundry sales API', version: 'v0' },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            deviceKey: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'device key (dk_ and 43 characters), from POST /api/v0/device/pair',
            },
          },
        },
      },
    })
  },
  { name: 'openapi' },
)
