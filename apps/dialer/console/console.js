// The supervisor console's page script: plain browser JavaScript, served as it is (no build step).
// It listens to /console/events (a full snapshot, then `live` and `center` updates) and redraws; the
// durations tick here, every second, from the "since" times the dialer sends.

const state = { live: null, center: null, history: [] }
const SVG = 'http://www.w3.org/2000/svg'

// --- helpers -------------------------------------------------------------------------------------

/** An element with attributes and children (text is always set as text, never parsed as HTML). */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue
    if (k === 'class') node.className = v
    else node.setAttribute(k, String(v))
  }
  for (const c of children) {
    if (c === null || c === undefined) continue
    node.append(c instanceof Node ? c : document.createTextNode(String(c)))
  }
  return node
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag)
  for (const [k, v] of Object.entries(attrs ?? {})) node.setAttribute(k, String(v))
  return node
}

function text(id, value) {
  const node = document.getElementById(id)
  if (node) node.textContent = value
}

/** 75 -> "1:15", 3700 -> "1:01:40". */
function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const ss = String(s % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`
}

/** An element whose text is the time since `sinceMs`, kept current by the ticker. */
function ticking(sinceMs) {
  const node = el('span', { 'data-since': sinceMs })
  node.textContent = duration((Date.now() - sinceMs) / 1000)
  return node
}

function tick() {
  const now = Date.now()
  for (const node of document.querySelectorAll('[data-since]')) {
    node.textContent = duration((now - Number(node.dataset.since)) / 1000)
  }
  text('clock', new Date(now).toLocaleTimeString())
}

function percent(rate) {
  return rate === null || rate === undefined ? '–' : `${(rate * 100).toFixed(1)}%`
}

function fill(tbody, rows, columns, emptyText) {
  tbody.replaceChildren(
    ...(rows.length ? rows : [el('tr', {}, el('td', { class: 'empty', colspan: columns }, emptyText))]),
  )
}

// --- the parts of the page -----------------------------------------------------------------------

const STATE_ORDER = ['talking', 'ringing', 'wrap-up', 'idle', 'resting', 'paused', 'unavailable', 'offline']

/** Every agent of the roster (database), with the dialer's view of it where it has one. */
function agents() {
  const live = new Map((state.live?.agents ?? []).map((a) => [a.agentId, a]))
  const rows = (state.center?.agents ?? []).map((a) => {
    const l = live.get(a.id)
    if (l) return { ...a, live: l, state: l.state, since: l.since, why: l.why }
    // Not followed by this dialer (no extension, inactive, or held by another dialer).
    const other = a.onCallBy && a.onCallBy !== state.live?.dialerId
    return {
      ...a,
      live: null,
      state: other ? 'talking' : a.presence === 'offline' || !a.active ? 'offline' : 'unavailable',
      since: other && a.onCallSince ? Date.parse(a.onCallSince) : null,
      why: notFollowedWhy(a),
    }
  })
  // Agents the dialer knows that the last database read had not yet listed.
  const known = new Set(rows.map((r) => r.id))
  for (const l of live.values()) {
    if (!known.has(l.agentId)) {
      rows.push({
        id: l.agentId,
        name: l.name,
        extension: l.extension,
        presence: l.presence,
        live: l,
        state: l.state,
        since: l.since,
        why: l.why,
      })
    }
  }
  rows.sort(
    (a, b) => STATE_ORDER.indexOf(a.state) - STATE_ORDER.indexOf(b.state) || a.name.localeCompare(b.name),
  )
  return rows
}

/**
 * Why an agent this dialer does not follow is offered no call, from their database row, in the words
 * and order of the dialer's own rule (agents/agent-why.ts): the dialer reads only agents with a desk,
 * so it has no reason of its own for the others.
 */
function notFollowedWhy(a) {
  if (!a.extension) return 'no desk extension'
  if (!a.active) return 'deactivated'
  if (a.presence !== 'ready') return `${a.presence} on the agent panel`
  return 'not read by this dialer yet'
}

function leadLabel(leadId) {
  const lead = (state.center?.leads ?? []).find((l) => l.id === leadId)
  return lead ? `${lead.oliId} (#${leadId})` : `#${leadId}`
}

function renderAgents() {
  const calls = new Map((state.live?.calls ?? []).map((c) => [c.leadId, c]))
  const list = agents()
  const rows = list.map((a) => {
    const call = a.live?.leadId ? calls.get(a.live.leadId) : undefined
    const wrap =
      a.state === 'wrap-up' && a.wrapUntil ? ` until ${new Date(a.wrapUntil).toLocaleTimeString()}` : ''
    return el(
      'tr',
      { 'data-agent-id': a.id, 'data-state': a.state },
      el('td', {}, a.name),
      el('td', {}, a.extension ?? '–'),
      el(
        'td',
        {},
        el('span', { class: `state ${a.state}` }, a.state),
        wrap,
        // Why the dialer offers this agent no call (agents/agent-why.ts), unless they are on one.
        a.why && !['talking', 'ringing', 'wrap-up'].includes(a.state)
          ? el('span', { class: 'why' }, a.why)
          : '',
      ),
      el('td', { class: 'num' }, a.since ? ticking(a.since) : ''),
      el(
        'td',
        { class: 'call' },
        call ? leadLabel(call.leadId) : a.state === 'talking' && !a.live ? `on ${a.onCallBy}` : '',
      ),
      el('td', { class: 'num' }, call ? ticking(call.startedAt) : ''),
      el('td', {}, a.presence ?? ''),
      el('td', { class: 'muted' }, a.live?.deskState ?? ''),
    )
  })
  fill(document.querySelector('#agents tbody'), rows, 8, 'No agents in the roster.')
  const count = (s) => list.filter((a) => a.state === s).length
  text('t-talking', count('talking'))
  text('t-agents', `${count('ringing')} ringing · ${count('wrap-up')} wrap-up · ${list.length} in roster`)
  text('t-idle', count('idle'))
  text(
    't-other',
    `${count('paused')} paused · ${count('resting')} resting · ${count('unavailable') + count('offline')} away`,
  )
}

const PHASES = ['dialing', 'ringing', 'answered', 'on-hold', 'connected']

/**
 * This dialer's calls in progress, from its live state: the one source of the "Calls live" tile, the
 * live calls table and this dialer's row of the dialers table (its heartbeat row is seconds old).
 */
function liveCalls() {
  return state.live?.calls ?? []
}

function renderCalls() {
  const live = state.live
  const agentsById = new Map((state.center?.agents ?? []).map((a) => [a.id, a]))
  for (const a of live?.agents ?? []) if (!agentsById.has(a.agentId)) agentsById.set(a.agentId, a)
  const calls = [...liveCalls()].sort((a, b) => a.startedAt - b.startedAt)
  const rows = calls.map((c) =>
    el(
      'tr',
      { 'data-lead-id': c.leadId, 'data-phase': c.phase },
      el('td', {}, leadLabel(c.leadId)),
      el('td', {}, c.agentId ? (agentsById.get(c.agentId)?.name ?? `#${c.agentId}`) : '–'),
      el('td', {}, c.mode ?? ''),
      el('td', {}, el('span', { class: `phase ${c.phase}` }, c.phase)),
      el('td', { class: 'num' }, ticking(c.phaseSince)),
      el('td', { class: 'num' }, ticking(c.startedAt)),
    ),
  )
  fill(document.querySelector('#calls tbody'), rows, 6, 'No call in progress.')
  text('t-calls', calls.length)
  text(
    't-phases',
    PHASES.map((p) => [p, calls.filter((c) => c.phase === p).length])
      .filter(([, n]) => n > 0)
      .map(([p, n]) => `${n} ${p}`)
      .join(' · ') || 'none',
  )
  // Header: this dialer and its AMI link.
  if (live) {
    text('dialer', `${live.dialerId} · ${live.dialMode}`)
    const ami = document.getElementById('ami')
    ami.textContent = `AMI ${live.ami.state}`
    ami.className = `pill ${live.ami.connected ? 'good' : 'bad'}`
    ami.title = `since ${new Date(live.ami.since).toLocaleString()}`
    // The trunk breaker: customer calls cannot be placed; the dialer tries one now and then.
    const trunk = document.getElementById('trunk')
    const open = live.trunk?.state === 'open'
    trunk.hidden = !open
    if (open) {
      trunk.textContent = `Trunk down: dialing stopped (${live.trunk.failures} calls not placed)`
      trunk.title = `since ${new Date(live.trunk.since).toLocaleString()}; next try ${new Date(live.trunk.nextProbeAt).toLocaleTimeString()}`
    }
    // Why nothing is dialed (idle/idle-report.ts), while nothing is.
    const idle = document.getElementById('idle')
    idle.hidden = !live.idle
    if (live.idle) {
      const since = new Date(live.idle.since).toLocaleTimeString()
      const reasons = live.idle.reasons.map((r) => r.text).join('; ') || 'no reason found'
      idle.textContent = `Nothing dialed since ${since}: ${reasons}`
    }
    const rate = live.abandonRate
    const cap = live.abandonRateMax
    const tile = document.getElementById('t-abandon')
    tile.textContent = rate === null ? 'n/a' : percent(rate)
    tile.className = `value ${rate === null ? '' : rate > cap ? 'bad' : rate > cap * 0.8 ? 'warn' : 'good'}`
    text('t-cap', cap === null ? 'progressive: no abandon cap' : `cap ${percent(cap)} (governor window)`)
    text('t-level', live.dialLevel === null ? '1' : live.dialLevel.toFixed(2))
    text('t-mode', `${live.dialMode} · ${live.reservedLeads} leads reserved`)
  }
}

/** A bar `share` of 120 px wide (set through the CSSOM: the page's policy refuses style attributes). */
function bar(share) {
  const node = el('span', { class: 'bar' })
  node.style.width = `${Math.round(share * 120)}px`
  return node
}

function renderOutcomes() {
  const today = state.center?.today
  if (!today) return
  text('today-date', `(${today.date}, ${state.center.timezone})`)
  const max = Math.max(1, ...today.outcomes.map((o) => o.calls))
  const rows = today.outcomes.map((o) =>
    el(
      'tr',
      { 'data-outcome': o.outcome },
      el('td', {}, o.outcome),
      el('td', { class: 'num' }, o.calls),
      el('td', { class: 'num' }, o.answered),
      el('td', { class: 'num' }, duration(o.talkSeconds)),
      el('td', {}, bar(o.calls / max)),
    ),
  )
  fill(document.querySelector('#outcomes tbody'), rows, 5, 'No call has ended today.')
  const total = today.outcomes.reduce((n, o) => n + o.calls, 0)
  const answered = today.outcomes.reduce((n, o) => n + o.answered, 0)
  text('t-today', total)
  text('t-answered', `${answered} answered`)
}

const KINDS = ['callback_due', 'retry_due', 'fresh', 'waiting', 'in_call']

function renderQueue() {
  const queue = state.center?.queue
  if (!queue) return
  const sum = (kind, priorityId) =>
    queue.counts
      .filter((c) => c.kind === kind && (priorityId === undefined || c.priorityId === priorityId))
      .reduce((n, c) => n + c.leads, 0)
  const ids = new Set(queue.counts.map((c) => c.priorityId))
  const rows = queue.priorities
    .filter((p) => ids.has(p.id))
    .map((p) =>
      el(
        'tr',
        { 'data-priority': p.id },
        el('td', {}, `${p.id} · ${p.name}`, p.dialable ? '' : ' (not dialed)'),
        ...KINDS.map((k) => el('td', { class: 'num' }, sum(k, p.id) || '')),
      ),
    )
  if (rows.length) {
    rows.push(
      el(
        'tr',
        { class: 'total' },
        el('th', {}, 'All'),
        ...KINDS.map((k) => el('th', { class: 'num' }, sum(k))),
      ),
    )
  }
  fill(document.querySelector('#queue tbody'), rows, 6, 'No lead waiting.')
  // Leads of a priority that is never dialed (Final Disposal) are listed, not counted as due.
  const dialable = new Set(queue.priorities.filter((p) => p.dialable).map((p) => p.id))
  const due = queue.counts.filter(
    (c) => dialable.has(c.priorityId) && ['callback_due', 'retry_due', 'fresh'].includes(c.kind),
  )
  text(
    't-due',
    due.reduce((n, c) => n + c.leads, 0),
  )
  text(
    't-waiting',
    `${sum('callback_due')} callbacks · ${sum('retry_due')} retries · ${sum('waiting')} later`,
  )
}

function renderDialers() {
  const dialers = state.center?.dialers ?? []
  const readAt = Date.parse(state.center?.at ?? new Date().toISOString())
  const rows = dialers.map((d) => {
    const seenMs = readAt - d.ageSeconds * 1000
    // This dialer's own row: its calls and AMI link as they are now, as the tile and the header say;
    // the other dialers' as their last heartbeat wrote them.
    const self = state.live && d.dialerId === state.live.dialerId
    const amiState = self ? state.live.ami.state : d.amiState
    const asOf = self ? 'now (this dialer)' : 'at its last heartbeat'
    return el(
      'tr',
      { 'data-dialer': d.dialerId, 'data-self': self ? 'true' : undefined },
      el('td', {}, d.dialerId, self ? el('span', { class: 'muted' }, ' (this console)') : ''),
      el('td', {}, `${d.hostname} (${d.pid})`),
      el('td', {}, d.pbx ?? ''),
      el('td', {}, d.dialMode),
      el(
        'td',
        { title: asOf },
        el('span', { class: `pill ${amiState === 'connected' ? 'good' : 'bad'}` }, amiState),
      ),
      el(
        'td',
        { class: `num ${d.alive ? '' : 'stale'}`, title: d.alive ? undefined : 'not seen for over 30 s' },
        ticking(seenMs),
        ' ago',
      ),
      el('td', { class: 'num calls', title: asOf }, self ? liveCalls().length : d.activeCalls),
      el('td', {}, new Date(d.startedAt).toLocaleString()),
      el('td', { class: 'num' }, d.details?.claims ?? ''),
      el('td', { class: 'num' }, d.details?.settled ?? ''),
      el('td', { class: 'num' }, d.details?.pendingSettles ?? ''),
    )
  })
  fill(document.querySelector('#dialers tbody'), rows, 11, 'No dialer has written a heartbeat.')
}

// --- charts (hand-drawn SVG: two small line charts do not need a charting library) ---------------

const W = 600
const H = 160
const PAD = { left: 40, right: 8, top: 8, bottom: 20 }
/** The abandon chart: room on the right for the answered calls' scale. */
const ABANDON_PAD = { ...PAD, right: 36 }

function axes(chart, maxY, format, t0, t1, pad = PAD) {
  for (const f of [0, 0.5, 1]) {
    const y = pad.top + (1 - f) * (H - pad.top - pad.bottom)
    chart.append(svg('line', { class: 'grid-line', x1: pad.left, x2: W - pad.right, y1: y, y2: y }))
    const label = svg('text', { class: 'y-axis', x: pad.left - 4, y: y + 3, 'text-anchor': 'end' })
    label.textContent = format(maxY * f)
    chart.append(label)
  }
  for (const [t, anchor] of [
    [t0, 'start'],
    [t1, 'end'],
  ]) {
    const label = svg('text', {
      x: anchor === 'start' ? pad.left : W - pad.right,
      y: H - 4,
      'text-anchor': anchor,
    })
    label.textContent = new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    chart.append(label)
  }
}

/**
 * The top of the answered calls' scale: an even whole number at least half again the busiest bucket,
 * so the bars keep out of the chart's top third and the middle grid line is a whole number of calls.
 */
function answeredScaleTop(maxAnswered) {
  return Math.max(2, 2 * Math.ceil((maxAnswered * 1.5) / 2))
}

function renderAbandonChart() {
  const abandon = state.center?.abandon
  const chart = document.getElementById('abandon-chart')
  if (!abandon || !chart) return
  text('abandon-hours', abandon.hours)
  const cap = state.live?.abandonRateMax ?? null
  // Progressive mode has no cap: no dashed line, nor its legend.
  document.getElementById('legend-cap').hidden = cap === null
  const buckets = abandon.buckets
  const rates = buckets.map((b) => (b.answered ? b.abandoned / b.answered : 0))
  const maxY = Math.max(0.05, (cap ?? 0) * 1.5, ...rates)
  const top = answeredScaleTop(Math.max(0, ...buckets.map((b) => b.answered)))
  const t0 = Date.parse(buckets[0]?.start ?? state.center.at)
  const t1 = Date.parse(buckets.at(-1)?.start ?? state.center.at) + abandon.bucketMinutes * 60_000
  const pad = ABANDON_PAD
  chart.replaceChildren()
  axes(chart, maxY, percent, t0, t1, pad)
  const innerW = W - pad.left - pad.right
  const innerH = H - pad.top - pad.bottom
  // The answered calls' own scale, on the right, on the same grid lines as the rate's.
  for (const f of [0, 0.5, 1]) {
    const label = svg('text', {
      class: 'answered-axis',
      x: W - pad.right + 4,
      y: pad.top + (1 - f) * innerH + 3,
      'text-anchor': 'start',
    })
    label.textContent = String(top * f)
    chart.append(label)
  }
  const bw = innerW / Math.max(1, buckets.length)
  // Answered calls per bucket as bars (right scale), the rate as a line (left scale), the cap dashed.
  buckets.forEach((b, i) => {
    const h = (b.answered / top) * innerH
    const bar = svg('rect', {
      class: 'answered',
      'data-answered': b.answered,
      x: pad.left + i * bw + 1,
      y: pad.top + innerH - h,
      width: Math.max(1, bw - 2),
      height: h,
    })
    const title = svg('title')
    title.textContent = `${new Date(b.start).toLocaleTimeString()}: ${b.answered} answered, ${b.abandoned} abandoned`
    bar.append(title)
    chart.append(bar)
  })
  const points = rates.map((r, i) => `${pad.left + (i + 0.5) * bw},${pad.top + (1 - r / maxY) * innerH}`)
  chart.append(svg('polyline', { class: 'rate', points: points.join(' ') }))
  if (cap !== null) {
    const y = pad.top + (1 - cap / maxY) * innerH
    chart.append(svg('line', { class: 'cap', x1: pad.left, x2: W - pad.right, y1: y, y2: y }))
  }
}

function renderLevelChart() {
  const chart = document.getElementById('level-chart')
  if (!chart) return
  // The samples, then the state now, so the line reaches the present (and has two points from the start).
  const history = [...(state.history ?? [])]
  const live = state.live
  if (live) history.push({ at: live.at, dialLevel: live.dialLevel, calls: live.calls.length })
  chart.replaceChildren()
  if (history.length === 0) return
  const level = (s) => s.dialLevel ?? 1
  const maxY = Math.max(2, ...history.map(level), ...history.map((s) => s.calls))
  const t0 = history[0].at
  const t1 = Math.max(history.at(-1).at, t0 + 60_000)
  axes(chart, maxY, (v) => v.toFixed(1), t0, t1)
  const innerW = W - PAD.left - PAD.right
  const innerH = H - PAD.top - PAD.bottom
  const x = (t) => PAD.left + ((t - t0) / (t1 - t0)) * innerW
  const y = (v) => PAD.top + (1 - v / maxY) * innerH
  chart.append(
    svg('polyline', { class: 'level', points: history.map((s) => `${x(s.at)},${y(level(s))}`).join(' ') }),
  )
  chart.append(
    svg('polyline', { class: 'calls', points: history.map((s) => `${x(s.at)},${y(s.calls)}`).join(' ') }),
  )
  for (const s of history)
    chart.append(svg('circle', { class: 'level-dot', cx: x(s.at), cy: y(level(s)), r: 2.5 }))
  const legend = svg('text', { x: W - PAD.right, y: PAD.top + 10, 'text-anchor': 'end', class: 'legend' })
  legend.textContent = 'blue: dial level · green: calls live'
  chart.append(legend)
}

function renderAll() {
  renderAgents()
  renderCalls()
  renderOutcomes()
  renderQueue()
  renderDialers()
  renderAbandonChart()
  renderLevelChart()
}

// --- the stream ----------------------------------------------------------------------------------

function setStream(kind, label) {
  const node = document.getElementById('stream')
  node.className = `pill ${kind}`
  node.dataset.state = label
  node.textContent = label
}

function connect() {
  const events = new EventSource('/console/events')
  events.addEventListener('snapshot', (e) => {
    const data = JSON.parse(e.data)
    state.live = data.live
    state.center = data.center
    state.history = data.history
    document.getElementById('problem').hidden = true
    setStream('good', 'live')
    renderAll()
  })
  events.addEventListener('live', (e) => {
    state.live = JSON.parse(e.data)
    renderAgents()
    renderCalls()
    renderDialers()
    renderAbandonChart()
    renderLevelChart()
  })
  events.addEventListener('center', (e) => {
    const data = JSON.parse(e.data)
    state.center = data.center
    state.history = data.history
    document.getElementById('problem').hidden = true
    renderAll()
  })
  events.addEventListener('problem', (e) => {
    const node = document.getElementById('problem')
    node.textContent = JSON.parse(e.data).message
    node.hidden = false
  })
  events.addEventListener('open', () => setStream('good', 'live'))
  events.addEventListener('error', () => {
    // EventSource reconnects by itself; a 401 (session gone after a restart) closes it: back to the login.
    if (events.readyState === EventSource.CLOSED) {
      setStream('bad', 'disconnected')
      fetch('/console/snapshot.json', { credentials: 'same-origin' }).then(
        (r) => {
          if (r.status === 401) window.location.assign('/console')
          else setTimeout(connect, 3000)
        },
        () => setTimeout(connect, 3000),
      )
    } else {
      setStream('warn', 'reconnecting')
    }
  })
}

tick()
setInterval(tick, 1000)
connect()
