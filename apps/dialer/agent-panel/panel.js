// The reference agent panel: plain JavaScript on the agent interface (docs/agent-interface.md).
// Every value from the server is written with textContent, never as HTML.
;(() => {
  const $ = (id) => document.getElementById(id)
  const HEARTBEAT_MS = 10_000
  let stream = null
  let heartbeat = null

  const post = async (url, body) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    })
    let data = {}
    try {
      data = await res.json()
    } catch {
      data = {}
    }
    return { status: res.status, data }
  }

  const showProblem = (el, text) => {
    el.textContent = text || ''
    el.hidden = !text
  }

  const time = (iso) => (iso ? new Date(iso).toLocaleString() : '')

  function signedOut(message) {
    if (stream) stream.close()
    stream = null
    if (heartbeat) clearInterval(heartbeat)
    heartbeat = null
    $('panel').hidden = true
    $('sign-in').hidden = false
    showProblem($('sign-in-problem'), message)
  }

  function signedIn(state) {
    $('sign-in').hidden = true
    $('panel').hidden = false
    showProblem($('sign-in-problem'), '')
    render(state)
    if (!stream) {
      stream = new EventSource('/agent/events')
      stream.addEventListener('state', (e) => render(JSON.parse(e.data)))
      stream.addEventListener('problem', (e) => showProblem($('problem'), JSON.parse(e.data).message))
      stream.addEventListener('signed-out', () => signedOut('Signed out.'))
    }
    if (!heartbeat) {
      heartbeat = setInterval(async () => {
        const r = await post('/agent/heartbeat')
        if (r.status === 401) signedOut('Your session has ended: sign in again.')
      }, HEARTBEAT_MS)
    }
  }

  function render(state) {
    if (!state) return
    showProblem($('problem'), '')
    $('agent-name').textContent = state.agent.name
    $('agent-extension').textContent = state.agent.extension
    const label =
      state.state === 'paused' && state.pauseReason ? `paused (${state.pauseReason})` : state.state
    $('state').textContent = label
    $('state').dataset.state = state.state
    $('since').textContent = state.presenceSince ? `since ${time(state.presenceSince)}` : ''
    const reason = $('reason')
    if (reason.options.length !== state.pauseReasons.length) {
      reason.replaceChildren(
        ...state.pauseReasons.map((r) => {
          const o = document.createElement('option')
          o.value = r
          o.textContent = r
          return o
        }),
      )
    }
    $('why').textContent = state.why ? `No call: ${state.why}` : ''
    $('why').hidden = !state.why
    $('wrap').hidden = state.state !== 'wrap-up'
    $('wrap-until').textContent = time(state.wrapUntil)
    $('ready-now').hidden = state.state !== 'wrap-up'
    const call = state.call
    $('call').hidden = !call
    if (!call) {
      $('callback-result').textContent = ''
      return
    }
    $('phase').textContent = call.phase ? `(${call.phase})` : ''
    const lead = call.lead || {}
    for (const dd of document.querySelectorAll('#pop dd')) {
      const value = lead[dd.dataset.field]
      dd.textContent =
        value === null || value === undefined
          ? ''
          : dd.dataset.field === 'callbackAt'
            ? time(value)
            : String(value)
    }
    $('attempts')
      .querySelector('tbody')
      .replaceChildren(
        ...(lead.attempts || []).map((a) => {
          const tr = document.createElement('tr')
          for (const v of [
            a.attemptNo,
            time(a.startedAt),
            a.outcome,
            a.agentExtension || '',
            a.talkSeconds ?? '',
          ]) {
            const td = document.createElement('td')
            td.textContent = String(v)
            tr.append(td)
          }
          return tr
        }),
      )
    $('callback').hidden = state.state !== 'wrap-up' && call.phase !== 'ended'
  }

  const act = async (url, body) => {
    const r = await post(url, body)
    if (r.status === 401) return signedOut('Your session has ended: sign in again.')
    if (r.status >= 400) return showProblem($('problem'), r.data.message || `refused (${r.status})`)
    if (r.data.state) render(r.data.state)
  }

  $('sign-in').addEventListener('submit', async (e) => {
    e.preventDefault()
    const r = await post('/agent/sign-in', { extension: $('extension').value, pin: $('pin').value })
    $('pin').value = ''
    if (r.status === 200) return signedIn(r.data.state)
    showProblem($('sign-in-problem'), r.data.message || `Sign-in refused (${r.status}).`)
  })
  $('ready').addEventListener('click', () => act('/agent/presence', { presence: 'ready' }))
  $('pause').addEventListener('click', () =>
    act('/agent/presence', { presence: 'paused', reason: $('reason').value }),
  )
  $('ready-now').addEventListener('click', () => act('/agent/ready-now'))
  $('sign-out').addEventListener('click', async () => {
    await post('/agent/sign-out')
    signedOut('')
  })
  $('callback').addEventListener('submit', async (e) => {
    e.preventDefault()
    // datetime-local gives YYYY-MM-DDTHH:MM, read by the dialer in the centre's TIMEZONE.
    const body = { scheduledAt: `${$('callback-at').value.replace('T', ' ')}:00` }
    if ($('callback-to').value) body.to = $('callback-to').value
    const r = await post('/agent/callback', body)
    $('callback-result').textContent =
      r.status === 200
        ? `Callback at ${r.data.lead.callback_scheduled_at} for ${r.data.lead.oli_id}.`
        : r.data.message || `refused (${r.status})`
    $('callback-result').dataset.ok = String(r.status === 200)
  })

  // Signed in already (the cookie): straight to the panel; else the form.
  ;(async () => {
    const res = await fetch('/agent/state', { credentials: 'same-origin' })
    if (res.status === 200) signedIn(await res.json())
    else signedOut('')
  })()
})()
