/**
 * The Sandnet reads behind the web pages (`/sandnet/...`, open, `{error}` bodies like scan): what
 * runs, dev tokens, live change notices, the request log, the network's health and the coin supply
 * over time. None is part of the spec or of upstream; docs/api.md ("Web pages") lists them.
 */
import type { Surface } from "../surface.ts"

export const WebSurface: Surface = {
  // errors render in the scan surface's `{error}` shape
  name: "scan",
  title: "Sandnet web pages",
  mount: "/sandnet",
  roots: ["/sandnet"],
  auth: "open",
  displayParam: (name: string) => name
}
