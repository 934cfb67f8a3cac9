/**
 * Dev tokens are signed with node:crypto alone (so `sandnet token` loads neither Effect nor jose):
 * the same bytes as jose's SignJWT, and verified by jose with the secret.
 */
import { jwtVerify, SignJWT } from "jose"
import { expect, it } from "vitest"
import { devTokenAt } from "../src/index.ts"

const NOW = Date.UTC(2026, 0, 1, 10, 30, 15, 999)

const withJose = (user: string, secret: string, audience?: string, expiresInSeconds?: number) => {
  const seconds = Math.floor(NOW / 1000)
  let jwt = new SignJWT({ scope: "daml_ledger_api" }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setSubject(user).setIssuedAt(seconds)
  if (audience !== undefined) jwt = jwt.setAudience(audience)
  if (expiresInSeconds !== undefined) jwt = jwt.setExpirationTime(seconds + expiresInSeconds)
  return jwt.sign(new TextEncoder().encode(secret))
}

it("a dev token is the compact JWS jose signs, with or without audience and expiry", async () => {
  expect(devTokenAt({ user: "alice" }, NOW)).toBe(await withJose("alice", "unsafe"))
  expect(devTokenAt({ user: "bob-ü", secret: "s3cret", audience: "https://canton.network", expiresInSeconds: 60 }, NOW)).toBe(
    await withJose("bob-ü", "s3cret", "https://canton.network", 60)
  )
  const { payload, protectedHeader } = await jwtVerify(devTokenAt({ user: "carol", secret: "k" }, NOW), new TextEncoder().encode("k"), { currentDate: new Date(NOW) })
  expect({ payload, protectedHeader }).toEqual({ payload: { scope: "daml_ledger_api", sub: "carol", iat: Math.floor(NOW / 1000) }, protectedHeader: { alg: "HS256", typ: "JWT" } })
})
