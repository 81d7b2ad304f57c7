import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { apiFixture, lead, masterRow } from './fixture.js'

// The push stores each lead's zones from its phone number (`customer_tz`, CALLING_HOURS): single and
// batch pushes, a re-push that changes the number, and national digits read as TIMEZONE's country
// when DEFAULT_COUNTRY is unset. The answer is the spec's, unchanged.

forEachDialect(t, async (t, database) => {
  t.test('single, batch and re-push with a new number', async (t) => {
    const fx = await apiFixture(t, database, { env: { TIMEZONE: 'America/New_York' } })
    const one = await fx.push(lead({ oli_id: 'TZ-1', phone_number: '+1 212 555 0100' }))
    t.equal(one.statusCode, 201)
    t.match(one.json(), { leads: [{ oli_id: 'TZ-1', status: 'inserted' }] })
    t.match(await masterRow(fx, 'TZ-1'), { customer_tz: 'America/New_York' })
    const batch = await fx.push({
      leads: [
        lead({ oli_id: 'TZ-2', phone_number: '4694521234' }),
        lead({ oli_id: 'TZ-3', phone_number: '+44 20 7123 4567' }),
        lead({ oli_id: 'TZ-4', phone_number: '5550000001' }),
      ],
    })
    t.equal(batch.statusCode, 201)
    t.match(await masterRow(fx, 'TZ-2'), { customer_tz: 'America/Chicago' }, 'Dallas, national digits')
    t.match(await masterRow(fx, 'TZ-3'), { customer_tz: 'Europe/London' })
    t.match(await masterRow(fx, 'TZ-4'), { customer_tz: 'America/New_York' }, 'no valid reading: TIMEZONE')
    const moved = await fx.push(lead({ oli_id: 'TZ-1', phone_number: '+1 310 555 0100' }))
    t.match(moved.json(), { leads: [{ oli_id: 'TZ-1', status: 'updated' }] })
    t.match(await masterRow(fx, 'TZ-1'), { customer_tz: 'America/Los_Angeles' }, 'follows the new number')
  })

  t.test('DEFAULT_COUNTRY set: national digits of that country', async (t) => {
    const fx = await apiFixture(t, database, { env: { TIMEZONE: 'Asia/Kolkata', DEFAULT_COUNTRY: 'US' } })
    await fx.push(lead({ oli_id: 'TZ-5', phone_number: '3105550100' }))
    t.match(await masterRow(fx, 'TZ-5'), { customer_tz: 'America/Los_Angeles' })
  })
})
