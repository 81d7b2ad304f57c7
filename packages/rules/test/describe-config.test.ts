// The log-safe summary: secrets and URL passwords masked, everything else as configured.
import t from 'tap'
import { describeConfig, parseConfig } from '../src/config.js'
import { MASK, maskSecret, maskUrlCredentials } from '../src/mask-secrets.js'

const SECRETS = {
  DATABASE_URL: 'mysql://dialer:db-pass-1@db.internal:3306/dialer',
  WS_SECRET: 'ws-secret-2',
  AMI_SECRET: 'ami-secret-3',
  DIALER_HTTP_SECRET: 'http-secret-6',
  REDIS_URL: 'redis://:redis-pass-4@cache:6379/0',
  SMTP_URL: 'smtps://mailer:smtp-pass-5@smtp.example.com:465',
}

t.test('describeConfig masks WS_SECRET, AMI_SECRET and the URL passwords', async (t) => {
  const config = parseConfig({ ...SECRETS, AMI_USERNAME: 'dialer', AMI_HOST: 'pbx' }, { hostZone: 'UTC' })
  const summary = describeConfig(config)
  t.equal(summary.wsSecret, MASK)
  t.equal(summary.ami.secret, MASK)
  t.equal(summary.dialerHttpSecret, MASK)
  t.equal(summary.databaseUrl, 'mysql://dialer:***@db.internal:3306/dialer')
  t.equal(summary.redisUrl, 'redis://:***@cache:6379/0')
  t.equal(summary.smtp.url, 'smtps://mailer:***@smtp.example.com:465')
  const text = JSON.stringify(summary)
  for (const secret of [
    'db-pass-1',
    'ws-secret-2',
    'ami-secret-3',
    'redis-pass-4',
    'smtp-pass-5',
    'http-secret-6',
  ]) {
    t.notOk(text.includes(secret), `${secret} is not in the summary`)
  }
})

t.test('describeConfig keeps everything that is not a secret', async (t) => {
  const config = parseConfig(
    { ...SECRETS, AMI_USERNAME: 'dialer', AMI_HOST: 'pbx', PORT: '8080', LOG_FORMAT: 'json' },
    { hostZone: 'UTC' },
  )
  const summary = describeConfig(config)
  t.equal(summary.ami.username, 'dialer')
  t.equal(summary.ami.host, 'pbx')
  t.equal(summary.ami.port, 5038)
  t.equal(summary.port, 8080)
  t.equal(summary.logFormat, 'json')
  t.strictSame(summary.hours, config.hours)
  t.strictSame(summary.retryPolicy, config.retryPolicy)
  t.equal(config.wsSecret, 'ws-secret-2', 'the configuration itself is untouched')
})

t.test('describeConfig shows unset secrets as unset', async (t) => {
  const summary = describeConfig(parseConfig({}, { hostZone: 'UTC' }))
  t.equal(summary.wsSecret, undefined)
  t.equal(summary.ami.secret, undefined)
  t.equal(summary.redisUrl, undefined)
  t.equal(summary.smtp.url, undefined)
  t.equal(summary.databaseUrl, 'sqlite:./data/dialer.sqlite')
})

t.test('maskUrlCredentials', async (t) => {
  t.equal(maskUrlCredentials('mysql://u:p@h/db'), 'mysql://u:***@h/db')
  t.equal(maskUrlCredentials('mysql://u:p%40ss@h/db'), 'mysql://u:***@h/db', 'encoded characters')
  t.equal(maskUrlCredentials('mysql://u@h/db'), 'mysql://u@h/db', 'a user name alone is kept')
  t.equal(maskUrlCredentials('mysql://h:3306/db'), 'mysql://h:3306/db', 'no credentials: unchanged')
  t.equal(maskUrlCredentials('sqlite:./data/dialer.sqlite'), 'sqlite:./data/dialer.sqlite')
  t.equal(maskUrlCredentials('dialer:pw@db/dialer'), '***@db/dialer', 'no scheme: masked up to the @')
  t.equal(maskUrlCredentials('mysql://u:p@[bad'), '***@[bad', 'unparseable with an @')
  t.equal(maskUrlCredentials('not a url'), 'not a url', 'unparseable without an @')
})

t.test('maskSecret', async (t) => {
  t.equal(maskSecret('x'), MASK)
  t.equal(maskSecret(undefined), undefined)
})
