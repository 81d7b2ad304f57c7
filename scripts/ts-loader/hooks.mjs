import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

// Transpiled output is cached by content so most test processes never load TypeScript itself
// (loading it costs about a second per process).
const cacheDir = fileURLToPath(new URL('../../node_modules/.cache/hold-dialer-ts/', import.meta.url))
let tsPromise = null

async function transpile(fileName, source) {
  tsPromise ??= import('typescript').then((m) => m.default)
  const ts = await tsPromise
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
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context)
  } catch (err) {
    if (isRelativeOrFile(specifier) && specifier.endsWith('.js')) {
      return next(`${specifier.slice(0, -3)}.ts`, context)
    }
    throw err
  }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) {
    return next(url, context)
  }
  return { format: 'module', source: await transpiled(fileURLToPath(url)), shortCircuit: true }
}

/** A file's transpiled text: from the cache, else transpiled and cached. */
async function transpiled(fileName) {
  const source = await readFile(fileName, 'utf8')
  const key = createHash('sha256').update(fileName).update('\0').update(source).digest('hex')
  const cached = `${cacheDir}${key}.js`
  try {
    return await readFile(cached, 'utf8')
  } catch {
    const output = await transpile(fileName, source)
    // Written aside then renamed, so a parallel test process never reads half a file.
    const temp = `${cached}.${process.pid}.tmp`
    await mkdir(cacheDir, { recursive: true })
    await writeFile(temp, output)
      .then(() => rename(temp, cached))
      .catch(() => {})
    return output
  }
}

/**
 * Fills the cache for `fileNames` in this one process (`pnpm test` does it first): on a fresh clone
 * each test process would otherwise load TypeScript (about a second) to transpile what it imports,
 * and the same sources again in the next. Returns how many files were read.
 */
export async function warmCache(fileNames) {
  for (const fileName of fileNames) await transpiled(fileName)
  return fileNames.length
}
