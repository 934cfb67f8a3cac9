/** The one place where the HTTP package reaches the engine's user management module. */
export { Admin } from "@sandnet/engine"
