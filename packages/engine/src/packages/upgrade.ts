/**
 * Upgrade compatibility between two versions of one package (a structural subset of Daml's smart
 * contract upgrade checks): the newer version keeps every template of the older one, every
 * choice of each template with the same consuming flag, every interface a template implements,
 * and every interface with its choices. Additions are always allowed.
 */
import type { ChoiceDescription, PackageDescription } from "@sandnet/core"
import type { UpgradeProblem } from "./errors.ts"

const choiceProblems = (
  module: string,
  entity: string,
  older: ReadonlyArray<ChoiceDescription>,
  newer: ReadonlyArray<ChoiceDescription>,
  kind: "template" | "interface"
): Array<UpgradeProblem> => {
  const problems: Array<UpgradeProblem> = []
  for (const choice of older) {
    const kept = newer.find((c) => c.name === choice.name)
    const subject = `choice ${module}:${entity}.${choice.name}`
    if (kept === undefined)
      problems.push({
        kind: kind === "template" ? "missingChoice" : "missingInterfaceChoice",
        module,
        entity,
        detail: choice.name,
        description: `${subject} is missing`
      })
    else if (kept.consuming !== choice.consuming)
      problems.push({
        kind: kind === "template" ? "choiceConsumingChanged" : "interfaceChoiceConsumingChanged",
        module,
        entity,
        detail: choice.name,
        description: `${subject} changed from ${choice.consuming ? "consuming" : "non-consuming"} to ${kept.consuming ? "consuming" : "non-consuming"}`
      })
  }
  return problems
}

/** What `newer` lacks or changed relative to `older`; empty when `newer` is a valid upgrade. */
export const upgradeProblems = (older: PackageDescription, newer: PackageDescription): ReadonlyArray<UpgradeProblem> => {
  const problems: Array<UpgradeProblem> = []
  for (const module of older.modules) {
    const kept = newer.modules.find((m) => m.name === module.name)
    for (const template of module.templates) {
      const next = kept?.templates.find((t) => t.name === template.name)
      if (next === undefined) {
        problems.push({
          kind: "missingTemplate",
          module: module.name,
          entity: template.name,
          description: `template ${module.name}:${template.name} is missing`
        })
        continue
      }
      problems.push(...choiceProblems(module.name, template.name, template.choices, next.choices, "template"))
      for (const iface of template.implements)
        if (!next.implements.includes(iface))
          problems.push({
            kind: "missingImplementation",
            module: module.name,
            entity: template.name,
            detail: iface,
            description: `template ${module.name}:${template.name} no longer implements ${iface}`
          })
    }
    for (const iface of module.interfaces) {
      const next = kept?.interfaces.find((i) => i.name === iface.name)
      if (next === undefined) {
        problems.push({
          kind: "missingInterface",
          module: module.name,
          entity: iface.name,
          description: `interface ${module.name}:${iface.name} is missing`
        })
        continue
      }
      problems.push(...choiceProblems(module.name, iface.name, iface.choices, next.choices, "interface"))
    }
  }
  return problems
}
