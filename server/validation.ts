// Request validation: Fastify's own Ajv compiler, plus one rule Ajv misses. With type coercion (the
// query string and path parameters are text), Ajv turns `Infinity`, `-Infinity` and `1e400` into
// non-finite numbers and then skips `minimum`/`maximum` for them (ajv#2212); a JSON body can hold
// `1e400` too. So every validator built here also refuses any number that is not finite, naming the
// field, whatever the schema: a route cannot forget it.
import AjvCompiler from '@fastify/ajv-compiler'
import type { FastifySchemaValidationError } from 'fastify/types/schema.d.ts'

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null }

/** The JSON pointer of the first number in `data` that is not finite, or undefined. */
export function nonFinitePath(data: unknown): string | undefined {
  // Iterative, so a deeply nested body cannot overflow the stack.
  const pending: [unknown, string][] = [[data, '']]
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, pointer] = next
    if (typeof value === 'number' && !Number.isFinite(value)) return pointer
    if (value && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        pending.push([child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`])
      }
    }
  }
  return undefined
}

function refuseNonFinite(validate: Validate): Validate {
  const checked: Validate = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors
      return false
    }
    const pointer = nonFinitePath(data)
    checked.errors =
      pointer === undefined
        ? null
        : [
            {
              keyword: 'finite',
              instancePath: pointer,
              schemaPath: '#',
              params: {},
              message: 'must be a finite number',
            },
          ]
    return pointer === undefined
  }
  return checked
}

const ajvCompilers = AjvCompiler()

/** Fastify's `schemaController.compilersFactory.buildValidator`: its default, with finite numbers. */
export const buildValidator = ((externalSchemas: never, options: never) => {
  const compile = ajvCompilers(externalSchemas, options) as unknown as (definition: unknown) => Validate
  return (definition: unknown) => refuseNonFinite(compile(definition))
}) as unknown as ReturnType<typeof AjvCompiler>
