/**
 * Command checks before interpretation: templates, choices and arguments against the templates'
 * Schemas, and disclosed contracts read back from their created-event blobs.
 */
import { Either, ParseResult, Schema } from "effect"
import { InvalidArgument, type ActiveContract } from "@sandnet/core"
import type { Command } from "../ledger/interpreter.ts"
import type { Template, TemplateRegistry } from "../ledger/template.ts"
import { decodeCreatedEventBlob } from "./created-event-blob.ts"
import { TemplatesOrInterfacesNotFound } from "./errors.ts"
import { parseReference, splitTemplateId } from "./event-format.ts"

export const formatIssues = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message}`))
    .join("; ")

const decodeValue = <A>(schema: Schema.Schema<A>, value: unknown, field: string): Either.Either<unknown, InvalidArgument> => {
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all" })(value)
  return Either.isLeft(decoded) ? Either.left(new InvalidArgument({ field, message: formatIssues(decoded.left) })) : Either.right(value)
}

/**
 * Checks commands before interpretation: the template exists (either reference form), the choice
 * exists, and the create arguments and choice argument decode with the template's Schemas (so a
 * bad field is a 400 naming it). `field` is the commands' JSON path, e.g. `commands`.
 */
export const checkCommands = (
  registry: TemplateRegistry,
  commands: ReadonlyArray<Command>,
  field: string
): Either.Either<ReadonlyArray<Command>, InvalidArgument | TemplatesOrInterfacesNotFound> =>
  Either.gen(function* () {
    for (const [i, command] of commands.entries()) {
      const at = `${field}[${i}].${command._tag}`
      if (parseReference(command.templateId) === undefined) {
        return yield* Either.left(new InvalidArgument({ field: `${at}.templateId`, message: `"${command.templateId}" is not a valid template identifier` }))
      }
      const template: Template<unknown> | undefined = registry.lookup(command.templateId)
      const interfaceId = template === undefined && command._tag === "ExerciseCommand" ? registry.interfaceOf(command.templateId) : undefined
      if (template === undefined && interfaceId === undefined) return yield* Either.left(new TemplatesOrInterfacesNotFound({ references: [command.templateId] }))
      if (template !== undefined && command._tag !== "ExerciseCommand") yield* decodeValue(template.payload, command.createArguments, `${at}.createArguments`)
      if (command._tag !== "CreateCommand") {
        // Through an interface the choice is the interface's; which template runs it is the contract's.
        const choice = template !== undefined ? template.choices.get(command.choice) : interfaceId === undefined ? undefined : registry.interfaceChoice(interfaceId, command.choice)
        if (choice === undefined) {
          const owner = template?.nameReference ?? `interface ${command.templateId}`
          return yield* Either.left(new InvalidArgument({ field: `${at}.choice`, message: `${template === undefined ? owner : `template ${owner}`} has no choice ${command.choice}` }))
        }
        yield* decodeValue(choice.argument, command.choiceArgument, `${at}.choiceArgument`)
      }
    }
    return commands
  })

/** Disclosed contracts from their blobs; a blob that is not one, or disagrees with its stated ids, is an InvalidArgument. */
export const decodeDisclosedContracts = (
  disclosed: ReadonlyArray<{ readonly createdEventBlob: string; readonly contractId?: string | undefined; readonly templateId?: string | undefined }>,
  field: string
): Either.Either<ReadonlyArray<ActiveContract>, InvalidArgument> =>
  Either.gen(function* () {
    const out: Array<ActiveContract> = []
    for (const [i, d] of disclosed.entries()) {
      const contract = decodeCreatedEventBlob(d.createdEventBlob)
      if (contract === undefined) {
        return yield* Either.left(new InvalidArgument({ field: `${field}[${i}].createdEventBlob`, message: "is not a created event blob of this network" }))
      }
      if (d.contractId !== undefined && d.contractId !== "" && d.contractId !== contract.created.contractId) {
        return yield* Either.left(new InvalidArgument({ field: `${field}[${i}].contractId`, message: `does not match the blob's contract ${contract.created.contractId}` }))
      }
      if (d.templateId !== undefined && d.templateId !== "") {
        const ref = parseReference(d.templateId)
        const own = splitTemplateId(contract.created.templateId)
        const same =
          ref !== undefined &&
          ref.module === own.module &&
          ref.entity === own.entity &&
          (ref.byName ? ref.pkg === contract.created.packageName : ref.pkg === own.pkg)
        if (!same) {
          return yield* Either.left(new InvalidArgument({ field: `${field}[${i}].templateId`, message: `does not match the blob's template ${contract.created.templateId}` }))
        }
      }
      out.push(contract)
    }
    return out
  })
