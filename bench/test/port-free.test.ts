import { createServer } from 'node:net'
import t from 'tap'
import { assertPortFree } from '../src/lib/port-free.js'

t.test('a port another process listens on is refused, naming the flag; a free one passes', async (t) => {
  const holder = createServer()
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
  const port = (holder.address() as { port: number }).port
  await t.rejects(assertPortFree(port), new RegExp(`port ${port} is in use .*--port`))
  await new Promise<void>((resolve) => holder.close(() => resolve()))
  await t.resolves(assertPortFree(port), 'free once it is closed')
})
