/**
 * The payload of a Sandnet package archive.
 *
 * Sandnet cannot run Daml-LF, so a package's payload carries its PackageDescription (see
 * `@sandnet/core` packages.ts) instead of Daml-LF. The payload is a protobuf message that reuses
 * Daml-LF's `ArchivePayload` field numbers where it overlaps (`minor` = 3) and leaves the Daml-LF
 * `Sum` oneof (fields 2 and 4) empty, so Daml tooling sees an archive of an unknown LF version and
 * Sandnet never mistakes a real Daml-LF package for one of its own:
 *
 *     message ArchivePayload {          // Sandnet's subset of daml_lf.proto's ArchivePayload
 *       string minor = 3;               // always "sandnet-1"
 *       SandnetPackage sandnet_package = 1000;
 *     }
 *     message SandnetPackage { string name = 1; string version = 2; repeated Module modules = 3; }
 *     message Module { string name = 1; repeated Template templates = 2; repeated Interface interfaces = 3; }
 *     message Template { string name = 1; repeated Choice choices = 2; repeated string implements = 3; }
 *     message Interface { string name = 1; repeated Choice choices = 2; }
 *     message Choice { string name = 1; bool consuming = 2; }
 *
 * Encoding is deterministic (fields in ascending number order, lists in the description's order),
 * so a description always yields the same payload and the same package id = hex sha256(payload).
 */
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire"
import type {
  ChoiceDescription,
  InterfaceDescription,
  ModuleDescription,
  PackageDescription,
  TemplateDescription
} from "@sandnet/core"
import { sha256Hex } from "@sandnet/core"
import { Either } from "effect"
import { InvalidPackageDescription } from "./errors.ts"
import {
  decodeWith,
  expectWire,
  readFields,
  readString,
  WireFailure,
  writeBool,
  writeMessage,
  writeRepeatedString,
  writeString
} from "./wire.ts"

export const SANDNET_PAYLOAD_MINOR = "sandnet-1"
export const SANDNET_PACKAGE_FIELD = 1000

const writeChoice = (choice: ChoiceDescription) => (w: BinaryWriter) => {
  writeString(w, 1, choice.name)
  writeBool(w, 2, choice.consuming)
}

const writeTemplate = (template: TemplateDescription) => (w: BinaryWriter) => {
  writeString(w, 1, template.name)
  for (const choice of template.choices) writeMessage(w, 2, writeChoice(choice))
  for (const iface of template.implements) writeRepeatedString(w, 3, iface)
}

const writeInterface = (iface: InterfaceDescription) => (w: BinaryWriter) => {
  writeString(w, 1, iface.name)
  for (const choice of iface.choices) writeMessage(w, 2, writeChoice(choice))
}

const writeModule = (module: ModuleDescription) => (w: BinaryWriter) => {
  writeString(w, 1, module.name)
  for (const template of module.templates) writeMessage(w, 2, writeTemplate(template))
  for (const iface of module.interfaces) writeMessage(w, 3, writeInterface(iface))
}

/** The payload bytes of a package (no validation; see validatePackageDescription). */
export const encodePackagePayload = (description: PackageDescription): Uint8Array => {
  const w = new BinaryWriter()
  writeString(w, 3, SANDNET_PAYLOAD_MINOR)
  writeMessage(w, SANDNET_PACKAGE_FIELD, (p) => {
    writeString(p, 1, description.name)
    writeString(p, 2, description.version)
    for (const module of description.modules) writeMessage(p, 3, writeModule(module))
  })
  return w.finish()
}

/** Daml-LF package id: lowercase hex SHA-256 of the archive payload. */
export const packageIdOf = (payload: Uint8Array): string => sha256Hex(payload)

/** Package id of a description (the id of its encoded payload). */
export const packageIdOfDescription = (description: PackageDescription): string =>
  packageIdOf(encodePackagePayload(description))

// ---------------------------------------------------------------------------------------------

const readChoice = (bytes: Uint8Array, message: string): ChoiceDescription => {
  let name = ""
  let consuming = false
  readFields(bytes, message, (field, wire, r) => {
    if (field === 1) {
      expectWire(message, "name", wire, WireType.LengthDelimited)
      name = readString(r, message, "name")
    } else if (field === 2) {
      expectWire(message, "consuming", wire, WireType.Varint)
      consuming = r.bool()
    } else return false
    return true
  })
  return { name, consuming }
}

const readTemplate = (bytes: Uint8Array): TemplateDescription => {
  const message = "Template"
  let name = ""
  const choices: Array<ChoiceDescription> = []
  const implementsList: Array<string> = []
  readFields(bytes, message, (field, wire, r) => {
    if (field === 1) {
      expectWire(message, "name", wire, WireType.LengthDelimited)
      name = readString(r, message, "name")
    } else if (field === 2) {
      expectWire(message, "choices", wire, WireType.LengthDelimited)
      choices.push(readChoice(r.bytes(), "Choice"))
    } else if (field === 3) {
      expectWire(message, "implements", wire, WireType.LengthDelimited)
      implementsList.push(readString(r, message, "implements"))
    } else return false
    return true
  })
  return { name, choices, implements: implementsList }
}

const readInterface = (bytes: Uint8Array): InterfaceDescription => {
  const message = "Interface"
  let name = ""
  const choices: Array<ChoiceDescription> = []
  readFields(bytes, message, (field, wire, r) => {
    if (field === 1) {
      expectWire(message, "name", wire, WireType.LengthDelimited)
      name = readString(r, message, "name")
    } else if (field === 2) {
      expectWire(message, "choices", wire, WireType.LengthDelimited)
      choices.push(readChoice(r.bytes(), "Choice"))
    } else return false
    return true
  })
  return { name, choices }
}

const readModule = (bytes: Uint8Array): ModuleDescription => {
  const message = "Module"
  let name = ""
  const templates: Array<TemplateDescription> = []
  const interfaces: Array<InterfaceDescription> = []
  readFields(bytes, message, (field, wire, r) => {
    if (field === 1) {
      expectWire(message, "name", wire, WireType.LengthDelimited)
      name = readString(r, message, "name")
    } else if (field === 2) {
      expectWire(message, "templates", wire, WireType.LengthDelimited)
      templates.push(readTemplate(r.bytes()))
    } else if (field === 3) {
      expectWire(message, "interfaces", wire, WireType.LengthDelimited)
      interfaces.push(readInterface(r.bytes()))
    } else return false
    return true
  })
  return { name, templates, interfaces }
}

const readPackage = (bytes: Uint8Array): PackageDescription => {
  const message = "SandnetPackage"
  let name = ""
  let version = ""
  const modules: Array<ModuleDescription> = []
  readFields(bytes, message, (field, wire, r) => {
    if (field === 1) {
      expectWire(message, "name", wire, WireType.LengthDelimited)
      name = readString(r, message, "name")
    } else if (field === 2) {
      expectWire(message, "version", wire, WireType.LengthDelimited)
      version = readString(r, message, "version")
    } else if (field === 3) {
      expectWire(message, "modules", wire, WireType.LengthDelimited)
      modules.push(readModule(r.bytes()))
    } else return false
    return true
  })
  return { name, version, modules }
}

/**
 * The Daml-LF version of a payload that carries a Daml-LF package (`daml_lf_1`, field 2, or
 * `daml_lf_2`, field 4, with its `minor`), e.g. "2.1"; undefined for any other bytes.
 */
export const damlLfVersionOf = (payload: Uint8Array): string | undefined => {
  const result = decodeWith(() => {
    let minor = ""
    let major: number | undefined
    readFields(payload, "ArchivePayload", (field, wire, r) => {
      if (field === 3 && wire === WireType.LengthDelimited) {
        minor = readString(r, "ArchivePayload", "minor")
        return true
      }
      if (field === 2 || field === 4) major = field === 2 ? 1 : 2
      return false
    })
    return major === undefined ? undefined : `${major}.${minor}`
  })
  return "ok" in result ? result.ok : undefined
}

/**
 * Decodes a payload. Checked: it is protobuf, `minor` is "sandnet-1", no Daml-LF package is
 * present, the Sandnet package is present. The description itself is not validated here.
 */
export const decodePackagePayload = (payload: Uint8Array): Either.Either<PackageDescription, string> => {
  const result = decodeWith(() => {
    let minor = ""
    let damlLf: number | undefined
    let pkg: PackageDescription | undefined
    readFields(payload, "ArchivePayload", (field, wire, r) => {
      if (field === 3) {
        expectWire("ArchivePayload", "minor", wire, WireType.LengthDelimited)
        minor = readString(r, "ArchivePayload", "minor")
      } else if (field === 2 || field === 4) {
        damlLf = field === 2 ? 1 : 2
        return false
      } else if (field === SANDNET_PACKAGE_FIELD) {
        expectWire("ArchivePayload", "sandnet_package", wire, WireType.LengthDelimited)
        pkg = readPackage(r.bytes())
      } else return false
      return true
    })
    if (damlLf !== undefined)
      throw new WireFailure(`the payload is a Daml-LF ${damlLf} package (minor "${minor}"); Sandnet only reads its own package descriptions (minor "${SANDNET_PAYLOAD_MINOR}")`)
    if (minor !== SANDNET_PAYLOAD_MINOR)
      throw new WireFailure(`ArchivePayload.minor is "${minor}", expected "${SANDNET_PAYLOAD_MINOR}"`)
    if (pkg === undefined) throw new WireFailure("ArchivePayload carries no Sandnet package (field 1000)")
    return pkg
  })
  return "ok" in result ? Either.right(result.ok) : Either.left(result.error)
}

// ---------------------------------------------------------------------------------------------
// validation

const PACKAGE_NAME = /^[A-Za-z0-9_-]+$/
const PACKAGE_VERSION = /^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*$/
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_']*$/
const MODULE_NAME = /^[A-Za-z_][A-Za-z0-9_']*(\.[A-Za-z_][A-Za-z0-9_']*)*$/
const INTERFACE_REFERENCE = /^\S+$/

export const isPackageName = (text: string): boolean => PACKAGE_NAME.test(text)
export const isPackageVersion = (text: string): boolean => PACKAGE_VERSION.test(text)

/** Compares dotted numeric versions segment by segment; a prefix is lower ("1.0" < "1.0.0"). */
export const comparePackageVersions = (a: string, b: string): number => {
  const x = a.split(".").map(Number)
  const y = b.split(".").map(Number)
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0)
    if (d !== 0) return d < 0 ? -1 : 1
  }
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1
}

const firstDuplicate = (names: ReadonlyArray<string>): string | undefined =>
  names.find((name, i) => names.indexOf(name) !== i)

/**
 * Rules: package name `[A-Za-z0-9_-]+`; version dotted non-negative integers without leading zeros;
 * module names dotted identifiers, unique; template and interface names identifiers, unique within
 * their module (they share one namespace); choice names identifiers, unique within their template
 * or interface; implemented interfaces non-blank and unique per template.
 */
export const validatePackageDescription = (
  description: PackageDescription
): Either.Either<PackageDescription, InvalidPackageDescription> => {
  const fail = (reason: string) =>
    Either.left(new InvalidPackageDescription({ packageName: description.name || "<unnamed>", reason }))
  if (!PACKAGE_NAME.test(description.name))
    return fail(`package name "${description.name}" must be non-empty and use only letters, digits, '_' and '-'`)
  if (!PACKAGE_VERSION.test(description.version))
    return fail(`package version "${description.version}" must be dot-separated non-negative integers without leading zeros`)
  const moduleDuplicate = firstDuplicate(description.modules.map((m) => m.name))
  if (moduleDuplicate !== undefined) return fail(`module ${moduleDuplicate} is defined twice`)
  for (const module of description.modules) {
    if (!MODULE_NAME.test(module.name)) return fail(`module name "${module.name}" is not a dotted name`)
    const entityDuplicate = firstDuplicate([...module.templates.map((t) => t.name), ...module.interfaces.map((i) => i.name)])
    if (entityDuplicate !== undefined) return fail(`${module.name}:${entityDuplicate} is defined twice`)
    const entities: ReadonlyArray<{ readonly name: string; readonly choices: ReadonlyArray<ChoiceDescription> }> = [
      ...module.templates,
      ...module.interfaces
    ]
    for (const entity of entities) {
      if (!IDENTIFIER.test(entity.name)) return fail(`"${module.name}:${entity.name}" is not a valid template or interface name`)
      for (const choice of entity.choices)
        if (!IDENTIFIER.test(choice.name)) return fail(`choice "${choice.name}" of ${module.name}:${entity.name} is not a valid name`)
      const choiceDuplicate = firstDuplicate(entity.choices.map((c) => c.name))
      if (choiceDuplicate !== undefined) return fail(`choice ${choiceDuplicate} of ${module.name}:${entity.name} is defined twice`)
    }
    for (const template of module.templates) {
      for (const iface of template.implements)
        if (!INTERFACE_REFERENCE.test(iface)) return fail(`${module.name}:${template.name} implements a blank interface name`)
      const implementsDuplicate = firstDuplicate(template.implements)
      if (implementsDuplicate !== undefined)
        return fail(`${module.name}:${template.name} implements ${implementsDuplicate} twice`)
    }
  }
  return Either.right(description)
}
