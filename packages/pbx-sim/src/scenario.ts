import { readFile } from 'node:fs/promises'
import type { AgentDeviceSetting, CustomerScript, OriginateResponseOrder, PbxSimOptions } from './types.js'

/** The JSON a `--scenario` file holds. Every key is optional. */
export interface Scenario {
  host?: string
  port?: number
  users?: Record<string, string>
  amiVersion?: string
  timeScale?: number
  seed?: number
  agents?: string[]
  agentPattern?: string
  agentStates?: Record<string, AgentDeviceSetting>
  customerContext?: string
  holdContext?: string
  agentAnswerSeconds?: number
  originateResponseOrder?: OriginateResponseOrder
  defaultOutcome?: CustomerScript
  numbers?: Record<string, CustomerScript>
}

type Obj = Record<string, unknown>

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0

const SCRIPT_FIELDS: Record<CustomerScript['kind'], { required: string[]; optional: string[] }> = {
  answer: { required: ['ringSeconds', 'talkSeconds'], optional: ['endedBy'] },
  busy: { required: [], optional: [] },
  noanswer: { required: [], optional: ['ringSeconds'] },
  congestion: { required: [], optional: [] },
  reject: { required: [], optional: ['ringSeconds'] },
  fail: { required: [], optional: [] },
  hangupWhileWaiting: { required: ['ringSeconds', 'patienceSeconds'], optional: ['talkSeconds'] },
  random: {
    required: ['answerProbability', 'ringSeconds', 'talkSeconds'],
    optional: ['busyProbability', 'patienceSeconds'],
  },
}

const MEAN_FIELDS = new Set(['ringSeconds', 'talkSeconds', 'patienceSeconds'])

function checkScript(value: unknown, path: string, errors: string[]): void {
  if (!isObj(value) || typeof value.kind !== 'string' || !(value.kind in SCRIPT_FIELDS)) {
    errors.push(`${path}: expected an object with kind one of ${Object.keys(SCRIPT_FIELDS).join(', ')}`)
    return
  }
  const kind = value.kind as CustomerScript['kind']
  const { required, optional } = SCRIPT_FIELDS[kind]
  for (const key of Object.keys(value)) {
    if (key !== 'kind' && !required.includes(key) && !optional.includes(key)) {
      errors.push(`${path}.${key}: not a field of ${kind}`)
    }
  }
  for (const key of required) if (!(key in value)) errors.push(`${path}.${key}: required for ${kind}`)
  for (const [key, field] of Object.entries(value)) {
    if (key === 'kind') continue
    if (key === 'endedBy') {
      if (field !== 'customer' && field !== 'agent') errors.push(`${path}.endedBy: 'customer' or 'agent'`)
    } else if (kind === 'random' && MEAN_FIELDS.has(key)) {
      if (!isObj(field) || !isNum(field.mean)) errors.push(`${path}.${key}: expected { "mean": seconds }`)
    } else if (key.endsWith('Probability')) {
      if (!isNum(field) || field > 1) errors.push(`${path}.${key}: expected a probability 0..1`)
    } else if (!isNum(field)) {
      errors.push(`${path}.${key}: expected a number of seconds >= 0`)
    }
  }
}

function checkStringMap(value: unknown, path: string, errors: string[], allowed?: readonly string[]): void {
  if (!isObj(value)) {
    errors.push(`${path}: expected an object`)
    return
  }
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string' || (allowed && !allowed.includes(v))) {
      errors.push(`${path}.${key}: expected ${allowed ? allowed.join(' | ') : 'a string'}`)
    }
  }
}

function checkPattern(value: unknown, errors: string[]): void {
  if (typeof value !== 'string') {
    errors.push('agentPattern: expected a regular expression string')
    return
  }
  try {
    new RegExp(value)
  } catch {
    errors.push('agentPattern: not a valid regular expression')
  }
}

/** Validates a parsed scenario; throws one Error listing every problem found. */
export function parseScenario(json: unknown): Scenario {
  const errors: string[] = []
  if (!isObj(json)) throw new Error('scenario: expected a JSON object')
  const known = new Set([
    'host',
    'port',
    'users',
    'amiVersion',
    'timeScale',
    'seed',
    'agents',
    'agentPattern',
    'agentStates',
    'customerContext',
    'holdContext',
    'agentAnswerSeconds',
    'originateResponseOrder',
    'defaultOutcome',
    'numbers',
  ])
  for (const key of Object.keys(json)) if (!known.has(key)) errors.push(`${key}: unknown key`)
  for (const key of ['host', 'amiVersion', 'customerContext', 'holdContext']) {
    if (key in json && typeof json[key] !== 'string') errors.push(`${key}: expected a string`)
  }
  for (const key of ['port', 'timeScale', 'seed', 'agentAnswerSeconds']) {
    if (key in json && !isNum(json[key])) errors.push(`${key}: expected a number >= 0`)
  }
  if ('timeScale' in json && json.timeScale === 0) errors.push('timeScale: must be > 0')
  if ('users' in json) checkStringMap(json.users, 'users', errors)
  if ('agentStates' in json)
    checkStringMap(json.agentStates, 'agentStates', errors, ['idle', 'busy', 'unavailable'])
  if ('agents' in json && (!Array.isArray(json.agents) || !json.agents.every((a) => typeof a === 'string'))) {
    errors.push('agents: expected an array of extension strings')
  }
  if ('agentPattern' in json) checkPattern(json.agentPattern, errors)
  if (
    'originateResponseOrder' in json &&
    !['before', 'after', 'seeded'].includes(String(json.originateResponseOrder))
  ) {
    errors.push('originateResponseOrder: expected before | after | seeded')
  }
  if ('defaultOutcome' in json) checkScript(json.defaultOutcome, 'defaultOutcome', errors)
  if ('numbers' in json) {
    if (!isObj(json.numbers)) errors.push('numbers: expected an object of number -> script')
    else for (const [n, script] of Object.entries(json.numbers)) checkScript(script, `numbers.${n}`, errors)
  }
  if (errors.length > 0) throw new Error(`invalid scenario:\n  ${errors.join('\n  ')}`)
  return json as Scenario
}

export async function loadScenario(path: string): Promise<Scenario> {
  const text = await readFile(path, 'utf8')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new Error(`scenario ${path}: not valid JSON`, { cause: err })
  }
  return parseScenario(json)
}

export function scenarioToOptions(scenario: Scenario): PbxSimOptions {
  const options: PbxSimOptions = {}
  if (scenario.host !== undefined) options.host = scenario.host
  if (scenario.port !== undefined) options.port = scenario.port
  if (scenario.users !== undefined) options.users = scenario.users
  if (scenario.amiVersion !== undefined) options.amiVersion = scenario.amiVersion
  if (scenario.timeScale !== undefined) options.timeScale = scenario.timeScale
  if (scenario.seed !== undefined) options.seed = scenario.seed
  if (scenario.agents !== undefined) options.agentExtensions = scenario.agents
  if (scenario.agentPattern !== undefined) options.agentPattern = scenario.agentPattern
  if (scenario.agentStates !== undefined) options.agentStates = scenario.agentStates
  if (scenario.customerContext !== undefined) options.customerContext = scenario.customerContext
  if (scenario.holdContext !== undefined) options.holdContext = scenario.holdContext
  if (scenario.agentAnswerSeconds !== undefined) options.agentAnswerSeconds = scenario.agentAnswerSeconds
  if (scenario.originateResponseOrder !== undefined)
    options.originateResponseOrder = scenario.originateResponseOrder
  if (scenario.defaultOutcome !== undefined) options.defaultOutcome = scenario.defaultOutcome
  if (scenario.numbers !== undefined) options.outcomes = scenario.numbers
  return options
}
