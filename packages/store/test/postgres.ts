/**
 * The local PostgreSQL server used by the tests (`SANDNET_TEST_POSTGRES_URL`, default
 * postgres://postgres@127.0.0.1:5432/test). Every test gets its own schema, named after this run;
 * `dropTestSchemas` drops them all.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { dropSchema } from "../src/index.ts"

export const postgresUrl = process.env["SANDNET_TEST_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"

const run = `sandnet_test_${process.pid}_${randomBytes(3).toString("hex")}`
const created: Array<string> = []

export const testSchema = (): string => {
  const schema = `${run}_${created.length}`
  created.push(schema)
  return schema
}

export const dropTestSchemas = Effect.forEach(created, dropSchema, { discard: true }).pipe(
  Effect.provide(PgClient.layer({ url: Redacted.make(postgresUrl), maxConnections: 1 }))
)
