// Request validation: Fastify's own Ajv compiler, plus one rule Ajv misses. With type coercion (the
// query string and path parameters are text), Ajv turns `Infinity`, `-Infinity` and `1e400` into
// non-finite numbers and then skips `minimum`/`maximum` for them (ajv#2212); a JSON body can hold
// `1e400` too. Coercion also reads `0x7ea`, `0b1` and ` 2026` as numbers. So every validator built here
// also refuses any number that is not finite, and any text it coerced to a number that is not written
// in decimal, naming the field, whatever the schema: a route cannot forget it. The one exception is
// a part the schema declares unknown (`{}`, TypeBox's Unknown): the route checks that part itself, one
// item at a time (a device's batch of sales, where one bad sale must not refuse the good ones).
import AjvCompiler from '@fastify/ajv-compiler'
import type { FastifySchemaValidationError } from 'fastify/types/schema.d.ts'
import { ApiError } from './errors.ts'

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null }

type Schema = {
  properties?: Record<string, Schema>
  additionalProperties?: Schema | boolean
  items?: Schema
}

/** A schema that says nothing of its value (`{}`): the route checks that value itself. */
const declaredUnknown = (schema: Schema | undefined) =>
  schema !== undefined &&
  typeof schema === 'object' &&
  Object.keys(schema).every((key) => key === 'description' || key === 'title' || key === '$comment')

/** The JSON pointer of the first number in `data` that is not finite (outside declared-unknown parts). */
function nonFinitePath(data: unknown, schema: Schema | undefined): string | undefined {
  // Iterative, so a deeply nested body cannot overflow the stack.
  const pending: [unknown, string, Schema | undefined][] = [[data, '', schema]]
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, pointer, part] = next
    if (declaredUnknown(part)) continue
    if (typeof value === 'number' && !Number.isFinite(value)) return pointer
    if (value && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const extra = typeof part?.additionalProperties === 'object' ? part.additionalProperties : undefined
        const childSchema = Array.isArray(value) ? part?.items : (part?.properties?.[key] ?? extra)
        pending.push([child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, childSchema])
      }
    }
  }
  return undefined
}

/** A number written in decimal, as a person types it: no hex, binary, spaces or `Infinity`. */
const decimal = /^-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i

/** The pointer of the first text field that coercion made a number although it is not decimal. */
function oddlyWrittenNumber(before: [string, string][], data: unknown): string | undefined {
  const after = data as Record<string, unknown>
  return before.find(([key, text]) => typeof after[key] === 'number' && !decimal.test(text))?.[0]
}

function refuseNonFinite(validate: Validate, schema: Schema | undefined): Validate {
  const checked: Validate = (data) => {
    // Coercion rewrites the object in place, so the text of each field is kept to compare.
    const texts =
      data && typeof data === 'object' && !Array.isArray(data)
        ? Object.entries(data).filter((entry): entry is [string, string] => typeof entry[1] === 'string')
        : []
    if (!validate(data)) {
      checked.errors = validate.errors
      return false
    }
    const oddKey = oddlyWrittenNumber(texts, data)
    const pointer = oddKey === undefined ? nonFinitePath(data, schema) : `/${oddKey}`
    checked.errors =
      pointer === undefined
        ? null
        : [
            {
              keyword: 'finite',
              instancePath: pointer,
              schemaPath: '#',
              params: {},
              message: 'must be a finite number written in decimal',
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
  // Fastify hands the compiler `{ schema, method, url, httpPart }`.
  return (definition: unknown) =>
    refuseNonFinite(compile(definition), (definition as { schema?: Schema } | undefined)?.schema)
}) as unknown as ReturnType<typeof AjvCompiler>

/**
 * An owner's name for something of the store (a device, a machine) as kept: trimmed; a control character
 * or an unpaired surrogate, which the database keeps neither of, is a 400 with `message`.
 */
export function keptName(name: string, message: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is refused
  if (/[\u0000-\u001f\u007f]/.test(name) || /\p{Cs}/u.test(name)) throw new ApiError(400, message)
  return name.trim()
}
