import { forEachDialect } from '@hold-dialer/db/testing'
import t from 'tap'
import { apiFixture, lead, masterRow } from './fixture.js'

// The push stores each lead's international form (`phone_e164`, from the text sent) and its zones
// (`customer_tz`, CALLING_HOURS): single and batch pushes, a re-push that changes the number, and
// national digits read as TIMEZONE's country when DEFAULT_COUNTRY is unset. The answer and the
// specification's `phone_number` column are the spec's, unchanged.

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

  t.test('the international form from the text as sent: +, 00, 011, national, unreadable', async (t) => {
    const fx = await apiFixture(t, database, { env: { TIMEZONE: 'America/Chicago', DEFAULT_COUNTRY: 'US' } })
    const sent = {
      'E-1': '+36 1 234 5201',
      'E-2': '3612345201',
      'E-3': '0044 20 7946 0303',
      'E-4': '011 44 20 7946 0303',
      'E-5': '212-555-0202',
      'E-6': '+1 212 555 0202',
      'E-7': '+61 412 345 301',
      'E-8': '123456789012345',
    }
    const res = await fx.push({
      leads: Object.entries(sent).map(([oli_id, phone_number]) => lead({ oli_id, phone_number })),
    })
    t.equal(res.statusCode, 201, 'every spelling the spec accepts is still accepted')
    const row = async (id: string) => {
      const r = (await masterRow(fx, id))!
      return { phone_number: r.phone_number, phone_e164: r.phone_e164, customer_tz: r.customer_tz }
    }
    t.same(
      await row('E-1'),
      { phone_number: '3612345201', phone_e164: '+3612345201', customer_tz: 'Europe/Budapest' },
      'Budapest: the + kept in its international form',
    )
    t.same(
      await row('E-2'),
      { phone_number: '3612345201', phone_e164: '+13612345201', customer_tz: 'America/Chicago' },
      'the same digits without + are a Texas number',
    )
    t.match(
      await row('E-3'),
      { phone_number: '00442079460303', phone_e164: '+442079460303', customer_tz: 'Europe/London' },
      'London written with 00',
    )
    t.match(
      await row('E-4'),
      { phone_e164: '+442079460303', customer_tz: 'Europe/London' },
      'London written with 011',
    )
    t.match(await row('E-5'), { phone_number: '2125550202', phone_e164: '+12125550202' })
    t.match(
      await row('E-6'),
      { phone_number: '12125550202', phone_e164: '+12125550202' },
      'one person, two spellings',
    )
    t.match(await row('E-7'), { phone_e164: '+61412345301' })
    t.ok(
      (await row('E-7')).customer_tz?.includes('Australia/Perth'),
      'an Australian mobile: Perth among its zones',
    )
    t.same(
      await row('E-8'),
      { phone_number: '123456789012345', phone_e164: '', customer_tz: 'America/Chicago' },
      'unreadable: an empty form',
    )
    await fx.push(lead({ oli_id: 'E-2', phone_number: '+36 1 234 5201' }))
    t.match(
      await row('E-2'),
      { phone_e164: '+3612345201', customer_tz: 'Europe/Budapest' },
      'a re-push rewrites it',
    )
    const one = await fx.push(lead({ oli_id: 'E-9', phone_number: '+44 (0)20 7946 0303' }))
    t.equal(one.statusCode, 201)
    t.match(await row('E-9'), { phone_e164: '+442079460303' }, 'a single-lead push too')
  })
})
