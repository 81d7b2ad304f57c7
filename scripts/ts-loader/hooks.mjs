import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

// Synchronous hooks (module.registerHooks, Node >= 22.15): they run on the importing thread, where
// module.register's hooks answer each import from a worker thread, about half a second of CPU per
// test process in message passing alone (the suites start a few hundred processes).
// Transpiled output is cached by content so most test processes never load TypeScript itself
// (loading it costs about a second per process).
const cacheDir = fileURLToPath(new URL('../../node_modules/.cache/hold-dialer-ts/', import.meta.url))
let ts = null

function transpile(fileName, source) {
  ts ??= createRequire(import.meta.url)('typescript')
  const { outputText } = ts.transpileModule(source, {
    fileName,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      inlineSourceMap: true,
      inlineSources: true,
    },
  })
  return outputText
}

const isRelativeOrFile = (s) => s.startsWith('.') || s.startsWith('/') || s.startsWith('file:')

/** NodeNext sources import `./x.js`; the file on disk is `./x.ts`. */
export function resolve(specifier, context, next) {
  try {
    return next(specifier, context)
  } catch (err) {
    if (isRelativeOrFile(specifier) && specifier.endsWith('.js')) {
      return next(`${specifier.slice(0, -3)}.ts`, context)
    }
    throw err
  }
}

export function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) {
    return next(url, context)
  }
  return { format: 'module', source: transpiled(fileURLToPath(url)), shortCircuit: true }
}

/** A file's transpiled text: from the cache, else transpiled and cached. */
function transpiled(fileName) {
  const source = readFileSync(fileName, 'utf8')
  const key = createHash('sha256').update(fileName).update('\0').update(source).digest('hex')
  const cached = `${cacheDir}${key}.js`
  try {
    return readFileSync(cached, 'utf8')
  } catch {
    const output = transpile(fileName, source)
    // Written aside then renamed, so a parallel test process never reads half a file.
    const temp = `${cached}.${process.pid}.tmp`
    try {
      mkdirSync(cacheDir, { recursive: true })
      writeFileSync(temp, output)
      renameSync(temp, cached)
    } catch {
      // A cache that cannot be written costs time, not correctness: the text is returned anyway.
    }
    return output
  }
}

/**
 * Fills the cache for `fileNames` in this one process (`pnpm test` does it first): on a fresh clone
 * each test process would otherwise load TypeScript (about a second) to transpile what it imports,
 * and the same sources again in the next. Returns how many files were read.
 */
export function warmCache(fileNames) {
  for (const fileName of fileNames) transpiled(fileName)
  return fileNames.length
}
