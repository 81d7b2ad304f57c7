// The documentation against the code: every link in the Markdown files leads to a file of this
// repository (and to a heading of it when it names one), every configuration variable is described in
// docs/configuration.md, every API error code is in docs/api.md with its status, and every
// `pnpm` script a person runs is in the README's "Commands". Reads the build (dist/), as
// scripts/check-deploy.mjs does.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import t from 'tap'
import { HTTP_STATUS } from '../../apps/api/dist/errors.js'
import { CONFIG_VARIABLES } from '../../packages/rules/dist/index.js'

const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '')
const read = (path) => readFileSync(join(root, path), 'utf8')
const markdownFiles = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'],
  { cwd: root, encoding: 'utf8' },
)
  .split('\n')
  .filter((path) => path !== '' && existsSync(join(root, path)))

/** The text outside fenced code blocks, line by line (a `#` inside a shell example is no heading). */
function proseLines(text) {
  let fenced = false
  return text.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced
      return false
    }
    return !fenced
  })
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(text) {
  const seen = new Map()
  const anchors = new Set()
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const base = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** Every inline link target of a Markdown text (images included), outside code. */
function linksOf(text) {
  const links = []
  for (const line of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, '')
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push(match[1])
  }
  return links
}

t.test('every link leads into this repository, to a file and heading that exist', async (t) => {
  for (const file of markdownFiles) {
    const text = read(file)
    for (const link of linksOf(text)) {
      const where = `${file}: ${link}`
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) {
        t.match(
          link,
          /^https?:\/\/(127\.0\.0\.1|localhost)[:/]/,
          `${where}: only localhost examples leave the repository`,
        )
        continue
      }
      const [path, anchor] = link.split('#')
      const target = path === '' ? join(root, file) : join(root, dirname(file), decodeURIComponent(path))
      t.notOk(relative(root, target).startsWith('..'), `${where}: stays inside the repository`)
      if (!existsSync(target)) {
        t.fail(`${where}: no such file`)
        continue
      }
      if (anchor !== undefined && statSync(target).isFile() && target.endsWith('.md')) {
        t.ok(anchorsOf(readFileSync(target, 'utf8')).has(anchor), `${where}: a heading with that anchor`)
      }
    }
  }
})

t.test('every configuration variable is described in docs/configuration.md', async (t) => {
  const text = read('docs/configuration.md')
  for (const { name } of CONFIG_VARIABLES) t.ok(text.includes(`\`${name}\``), name)
})

t.test('every API error code is in docs/api.md with its status', async (t) => {
  const text = read('docs/api.md')
  for (const [code, status] of Object.entries(HTTP_STATUS)) {
    t.match(text, new RegExp(`\\| ${status}\\s*\\| \`${code}\``), `${status} ${code}`)
  }
})

t.test("every pnpm script a person runs is in the README's Commands", async (t) => {
  const readme = read('README.md')
  const start = readme.indexOf('\n## Commands\n')
  t.not(start, -1, 'a "Commands" section')
  const end = readme.indexOf('\n## ', start + 1)
  const commands = readme.slice(start, end === -1 ? undefined : end)
  const scripts = Object.keys(JSON.parse(read('package.json')).scripts)
  // postinstall is pnpm's own hook; typecheck is build's other name.
  for (const name of scripts.filter((s) => s !== 'postinstall' && s !== 'typecheck')) {
    t.match(commands, new RegExp(`\`pnpm (?:run |-[-a-z]+ )*${name}[\` ]`), name)
  }
})
