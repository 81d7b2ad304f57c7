import { request } from 'node:http'
import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { SECRET } from './fixture.js'
import { freePort, listeningPort, startServer } from './server-process.js'

t.test('refuses to start without WS_SECRET, naming the variable', async (t) => {
  const s = startServer({ DATABASE_URL: 'sqlite::memory:' })
  t.equal(await s.exited, 2)
  t.match(s.output(), /WS_SECRET/)
})

t.test('a bad variable stops the process with a message naming it', async (t) => {
  const s = startServer({
    DATABASE_URL: 'sqlite::memory:',
    WS_SECRET: SECRET,
    PORT: 'eighty',
    WORK_START: '25:00',
  })
  t.equal(await s.exited, 2)
  t.match(s.output(), /PORT/)
  t.match(s.output(), /WORK_START/)
})

t.test('a port in use: one fatal line saying what to do, exit 1', async (t) => {
  const { createServer } = await import('node:net')
  const port = await freePort()
  const holder = createServer().listen(port, '127.0.0.1')
  await new Promise((resolve) => holder.once('listening', resolve))
  t.teardown(() => holder.close())
  const s = startServer({ DATABASE_URL: 'sqlite::memory:', WS_SECRET: SECRET, PORT: String(port) })
  t.equal(await s.exited, 1)
  const fatal = s
    .output()
    .split('\n')
    .filter((l) => l.includes('"level":60'))
    .map((l) => JSON.parse(l) as { msg: string; err: { code: string } })
  t.equal(fatal.length, 1)
  t.equal(
    fatal[0]?.msg,
    `cannot listen on 127.0.0.1:${port}: the port is in use; stop what listens there, or set PORT (or HOST)`,
  )
  t.equal(fatal[0]?.err.code, 'EADDRINUSE', 'the error itself is logged with it')
})

forEachDialect(t, async (t, database) => {
  t.test(
    'migrates on start, serves, and on SIGTERM finishes the in-flight request before exiting',
    async (t) => {
      const s = startServer({ DATABASE_URL: database.url, WS_SECRET: SECRET, PORT: String(await freePort()) })
      t.teardown(() => {
        if (s.child.exitCode === null) s.child.kill('SIGKILL')
      })
      const port = await listeningPort(s)
      const body = JSON.stringify({
        oli_id: 'SRV-1',
        phone_number: '9876543210',
        client_name: 'Server Test',
        form_type: 'x',
        priority_id: 1,
      })
      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/leads',
            headers: { 'x-api-key': SECRET, 'transfer-encoding': 'chunked' },
          },
          (res) => {
            let text = ''
            res.on('data', (d) => (text += d))
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
          },
        )
        req.on('error', reject)
        // Half the body now, SIGTERM, then the rest: the request is in flight when shutdown starts.
        req.write(body.slice(0, 20))
        setTimeout(() => {
          s.child.kill('SIGTERM')
          setTimeout(() => req.end(body.slice(20)), 200)
        }, 200)
      })
      const res = await response
      t.equal(res.status, 201, res.body)
      t.equal(await s.exited, 0, s.output())
      t.match(s.output(), /shutting down/)
      t.notMatch(s.output(), new RegExp(SECRET), 'the secret never reaches the log')
      const row = await database.handle.kysely
        .selectFrom('hold_dialer_master_data')
        .select('oli_id')
        .where('oli_id', '=', 'SRV-1')
        .executeTakeFirst()
      t.ok(row, 'the in-flight lead was written')
    },
  )
})
