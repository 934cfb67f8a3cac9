/**
 * What a package (the unit a DAR carries) declares: its name and version and, per module, the
 * templates with their choices and implemented interfaces. Sandnet's own coin model is described
 * this way and its package ids are derived from the description, so they are stable across runs
 * and machines; uploaded DARs are checked against these descriptions for upgrade compatibility.
 */
export interface ChoiceDescription {
  readonly name: string
  readonly consuming: boolean
}

export interface TemplateDescription {
  readonly name: string
  readonly choices: ReadonlyArray<ChoiceDescription>
  readonly implements: ReadonlyArray<string>
}

export interface InterfaceDescription {
  readonly name: string
  readonly choices: ReadonlyArray<ChoiceDescription>
}

export interface ModuleDescription {
  readonly name: string
  readonly templates: ReadonlyArray<TemplateDescription>
  readonly interfaces: ReadonlyArray<InterfaceDescription>
}

export interface PackageDescription {
  readonly name: string
  /** Dotted numeric version, e.g. "0.1.14". */
  readonly version: string
  readonly modules: ReadonlyArray<ModuleDescription>
}
