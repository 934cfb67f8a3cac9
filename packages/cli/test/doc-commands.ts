/**
 * The shell commands that README.md and docs/*.md tell a user to type, read out of the Markdown in
 * document order: fenced `sh`/`bash`/`shell` blocks, indented blocks that start with a command, and
 * inline code spans that start with `npx `. A block's lines run as one shell script (an `export` in
 * it holds for the lines after it); a line that starts a node (`npm start`, `sandnet start`) is a
 * starter: it runs in the background and the next block talks to it.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

export interface DocBlock {
  readonly file: string
  /** 1-based line of the block's first command. */
  readonly line: number
  /** Commands of the block, continuation lines joined, comments cut. */
  readonly commands: ReadonlyArray<string>
}

const COMMAND_START = /^(npx|npm|curl|export)\b|^[A-Z_]+=/
const SHELL_FENCE = /^```(sh|bash|shell)\s*$/

/**
 * A block's lines as commands: a line ending in `\` continues on the next, so does a line that ends
 * inside a quoted string (the newline stays in the string); a ` # comment` outside quotes is cut.
 */
const commandsOf = (lines: ReadonlyArray<string>): Array<string> => {
  const commands: Array<string> = []
  let pending = ""
  let quote: string | undefined
  for (const raw of lines) {
    let line = quote === undefined ? raw.trim() : raw
    let cut = line.length
    for (let i = 0; i < line.length && cut === line.length; i++) {
      const c = line[i]!
      if (quote !== undefined) {
        if (c === quote) quote = undefined
      } else if (c === "'" || c === '"') quote = c
      else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) cut = i
    }
    line = line.slice(0, cut).trimEnd()
    if (quote !== undefined) pending += line + "\n"
    else if (line.endsWith("\\")) pending += line.slice(0, -1).trimEnd() + " "
    else {
      if ((pending + line).length > 0) commands.push(pending + line)
      pending = ""
    }
  }
  return commands
}

/** The command blocks and inline `npx ...` spans of one Markdown text, in document order. */
export const docBlocksOf = (file: string, text: string): Array<DocBlock> => {
  const lines = text.split("\n")
  const blocks: Array<DocBlock> = []
  const prose: Array<{ line: number; text: string }> = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (line.startsWith("```")) {
      const shell = SHELL_FENCE.test(line)
      const start = i + 1
      i++
      while (i < lines.length && !lines[i]!.startsWith("```")) i++
      if (shell) blocks.push({ file, line: start + 1, commands: commandsOf(lines.slice(start, i)) })
      i++
      continue
    }
    if (line.startsWith("    ") && (i === 0 || lines[i - 1]!.trim() === "")) {
      const start = i
      while (i < lines.length && (lines[i]!.startsWith("    ") || (lines[i]!.trim() === "" && lines[i + 1]?.startsWith("    ")))) i++
      const body = lines.slice(start, i).filter((l) => l.trim() !== "")
      if (COMMAND_START.test(body[0]!.trim())) blocks.push({ file, line: start + 1, commands: commandsOf(body) })
      continue
    }
    prose.push({ line: i + 1, text: line })
    i++
  }
  return [...blocks, ...inlineCommandsOf(file, prose)].sort((a, b) => a.line - b.line)
}

/** Inline `npx ...` spans (a span may wrap onto the next line). */
const inlineCommandsOf = (file: string, prose: ReadonlyArray<{ line: number; text: string }>): Array<DocBlock> => {
  const found: Array<DocBlock> = []
  for (let k = 0; k < prose.length; k++) {
    const here = prose[k]!
    const next = prose[k + 1]
    const text = next !== undefined && next.line === here.line + 1 ? `${here.text}\n${next.text}` : here.text
    for (const match of text.matchAll(/`(npx [^`]+)`/g)) {
      if (match.index! >= here.text.length) continue // found again on the next line
      found.push({ file, line: here.line, commands: [match[1]!.replace(/\s+/g, " ").trim()] })
    }
  }
  return found
}

/** README.md and every docs/*.md of the project, by name. */
export const projectDocs = (root: string): Array<{ file: string; text: string }> => [
  { file: "README.md", text: readFileSync(join(root, "README.md"), "utf8") },
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => ({ file: `docs/${name}`, text: readFileSync(join(root, "docs", name), "utf8") }))
]

/** A command that starts a node that keeps running (it is run in the background). */
export const isStarter = (command: string): boolean => /^(\S+=\S+\s+)*(npm start|npx sandnet start)\b/.test(command)
