# Writes sidekiq_starts.tsv: what the real fugit and sidekiq-cron give,
# for fleet/tests/fleet/sidekiq.rs.
#
#   apt-get install ruby-fugit ruby-sidekiq ruby-sidekiq-cron
#   TZ=UTC ruby fleet/tests/data/make_sidekiq_vectors.rb > fleet/tests/data/sidekiq_starts.tsv
#
# Rows (tab-separated, times in Unix seconds unless named):
#   next     CRON  FROM  T1,T2,...   each time Fugit::Cron#next_time gives, from FROM on
#   raises   CRON  FROM  CLASS       next_time raises (fugit's loop cap, a modulo of 0)
#   refused  CRON  WHY               sidekiq-cron's Job#valid? refuses the string
#   polls    CRON  AVG  POLLS  ENQUEUED  the job's real test_and_enque_for_time! at each
#                                    poll (Unix microseconds), against a Redis kept
#                                    in memory: each enqueueing poll and the cron time
#                                    it enqueued for, as POLL:NOMINAL
#
# The machine's zone is UTC (TZ=UTC): fugit reads a string without a zone
# on the process's local clock.

require 'fugit'
require 'sidekiq'
require 'sidekiq/cron/job'
require 'sidekiq/cron/version'

abort 'run with TZ=UTC' unless Time.now.utc_offset == 0
Sidekiq.logger.level = Logger::WARN

puts "# fugit #{Fugit::VERSION}, et-orbi #{EtOrbi::VERSION}, raabro #{Raabro::VERSION}, " \
     "sidekiq #{Sidekiq::VERSION}, sidekiq-cron #{Sidekiq::Cron::VERSION}, ruby #{RUBY_VERSION}"
puts "# written by fleet/tests/data/make_sidekiq_vectors.rb"

def esc(s)
  s.gsub('\\', '\\\\\\\\').gsub("\t", '\\t').gsub("\n", '\\n')
end

def at(text)
  Time.parse(text).to_i
end

FROMS = [
  '2024-01-01T00:00:00Z', '2024-02-28T23:59:30Z', '2024-03-30T12:00:00Z',
  '2024-10-26T12:00:00Z', '2024-03-09T12:00:00Z', '2024-11-02T12:00:00Z',
].map { |t| at(t) }

CRONS = [
  '* * * * *', '*/15 * * * *', '0 * * * *', '30 2 * * *', '5 4 * * sun',
  '0 0 1 * *', '0 9 * * 1-5', '0 9 * * MON-FRI', '0 12 * JAN,jul *',
  '15,45 */2 * * *', '0 0 29 2 *', '0 0 L * *', '0 12 last * *',
  '0 0 -3 * *', '0 0 -5--1 * *', '0 0 15 * 5', '0 0 1,15 * 1',
  '0 0 */2 * 1', '0 0 * * 1#2', '0 0 * * 5#L', '0 0 * * 5#-2',
  '0 0 * * 1%2', '0 0 * * 2%3+1', '0 0 * * 1#1,1#3', '0 0 * * 5-1',
  '0 0 * * 7', '0 0 * * 0-7/2', '0 0 * * */2', '0 0 * * 5/2',
  '0 0 * * *,1', '0 0 1,* * *', '50-10 * * * *', '22-2 0 * * *',
  '0 24 * * *', '0 20-24 * * *', '0 0 5/10 * *', '5/1 * * * *',
  '/20 * * * *', '0 0 30 1,2 *', '0 0 30 2,3 mon', '0 0 31 * *',
  '*/10 * * * * *', '30 */5 * * * *', '0 0 12 * * *', '5,35 0 0 * * *',
  '* * * * * *', '0-10/3 1 1 * * *',
  '@hourly', '@daily', '@midnight', '@weekly', '@monthly', '@yearly',
  '@annually', '@noon',
  '0 3 * * * Europe/Paris', '30 2 * * * Europe/Paris',
  '*/30 1-3 * * * Europe/Paris', '0,30 2 * * * Europe/Paris',
  '0 12 L * * Europe/Paris', '0 0 * * * America/New_York',
  '30 2 * * * America/New_York', '0 1 * * * America/New_York',
  '*/20 1 * * * America/New_York', '0 0 * * 2%2 Europe/Paris',
  '0 0 * * 0#-1 Europe/Paris', '0 30 2 * * * Europe/Paris',
  '0 9 * * 1-5 Asia/Kolkata', '0 0 * * * +09:00', '0 0 * * * -0530',
  '0 0 * * * UTC', '0 0 * * * Etc/GMT+5',
  "0\t0 * * *", '0  0 * * *', '0 0 1-L * *', '0 0 * * 1 Europe/Paris',
]

REFUSED = [
  '', '* * * *', '* * * * * * *', '60 * * * *', '0 25 * * *', '0 0 0 * *',
  '0 0 32 * *', '0 0 * 13 *', '0 0 * * 8', '0 0 * * monday', '0 0 30 2 *',
  '0 0 31 2 1', '*/0 * * * *', ' 0 0 * * *', '0 0 * * * ',
  '0 0 * * * Nowhere/Zone', '0 0 * * * europe/paris', '@reboot', '@HOURLY',
  '1h', '2024-01-01 00:00:00', '0 0 * * 1#0', '0 0 * * 1#6', '*/100 * * * *',
  '0 0 -1-5 * *', '0 0 * * * * UTC junk',
]

CRONS.each do |cron|
  c = Fugit::Cron.parse(cron)
  abort "fugit refuses #{cron.inspect}" unless c
  FROMS.each do |from|
    times = []
    t = EtOrbi::EoTime.new(from, 'UTC')
    begin
      12.times do
        t = c.next_time(t)
        times << t.to_i
      end
      puts ['next', esc(cron), from, times.join(',')].join("\t")
    rescue => e
      puts ['raises', esc(cron), from, e.class.to_s].join("\t")
    end
  end
end

def job(cron, extra = {})
  Sidekiq::Cron::Job.new({
    'name' => 'vector', 'cron' => cron, 'class' => 'VectorJob',
    'status' => 'enabled', 'last_enqueue_time' => '2000-01-01 00:00:00 +0000'
  }.merge(extra))
end

REFUSED.each do |cron|
  j = job(cron)
  abort "sidekiq-cron takes #{cron.inspect}" if j.valid? && !Fugit::Cron.parse(cron).nil?
  why = j.valid? ? "not a cron but a #{Fugit.parse(cron).class}" : j.errors.join('; ')
  puts ['refused', esc(cron), esc(why)].join("\t")
end

# Enough of Redis for Job#save, Job.all and test_and_enque_for_time!.
class MemoryRedis
  def initialize; @h = Hash.new { |h, k| h[k] = {} }; @z = Hash.new { |h, k| h[k] = {} }; @s = Hash.new { |h, k| h[k] = [] }; end
  def sadd(key, members); @s[key] |= Array(members); true; end
  def smembers(key); @s[key]; end
  def hmset(key, *pairs); pairs.each_slice(2) { |k, v| @h[key][k.to_s] = v.to_s }; 'OK'; end
  def hset(key, field, value); @h[key][field.to_s] = value.to_s; 1; end
  def hget(key, field); @h[key][field.to_s]; end
  def hgetall(key); @h[key].dup; end
  def zadd(key, score, member); new = !@z[key].key?(member); @z[key][member] = score.to_f; new; end
  def zremrangebyscore(*); 0; end
  def lpush(*); 1; end
  def ltrim(*); 'OK'; end
  def exists?(key); @z.key?(key) || @h.key?(key); end
  def exists(key); exists?(key) ? 1 : 0; end
  def pipelined; @piped = []; yield PipeRecorder.new(self, @piped); @piped; end
end

class PipeRecorder
  def initialize(redis, out); @redis = redis; @out = out; end
  def method_missing(name, *args); @out << @redis.send(name, *args); end
  def respond_to_missing?(*) = true
end

class VectorJob
  def self.get_sidekiq_options = { 'queue' => 'default' }
  def self.set(*) = self
  def self.perform_async(*) = 'jid'
end

# A poller's polls: gaps of 30 * rand + 15 seconds, as Sidekiq 6.4.1's
# random_poll_interval sleeps for the cron poller's average of 30, from
# a seeded generator so the file is the same on every run.
def polls(start, count, average)
  rng = Random.new(20_240_101)
  t = start * 1_000_000 + rng.rand(average * 1_000_000)
  Array.new(count) { t += ((average * rng.rand + average / 2.0) * 1_000_000).to_i }
end

[
  ['0 0 * * *', 30], ['*/5 * * * *', 30], ['* * * * *', 30], ['*/10 * * * * *', 30],
  ['30 * * * * *', 30], ['* * * * *', 60], ['0,1 * * * *', 90], ['0 3 * * * Europe/Paris', 30],
  ['30 2 * * * Europe/Paris', 30],
].each do |cron, average|
  redis = MemoryRedis.new
  Sidekiq.define_singleton_method(:redis) { |&b| b.call(redis) }
  start = cron.include?('Europe') ? at('2024-10-27T00:20:00Z') : at('2024-01-01T00:00:00Z') - 120
  # Job#save marks the cron time before Time.now as enqueued: the job is
  # saved at the start, before the first poll.
  saved = Time.at(start).utc
  Time.define_singleton_method(:now) { saved }
  job(cron, 'last_enqueue_time' => '').save
  list = polls(start, 400, average)
  enqueued = []
  list.each do |poll|
    time = Time.at(poll / 1_000_000, poll % 1_000_000, :usec).utc
    # enque! stamps last_enqueue_time with Time.now, not the poll's time:
    # the clock stands still at the poll here, as it nearly does there.
    Time.define_singleton_method(:now) { time }
    Sidekiq::Cron::Job.all.each do |j|
      next unless j.valid?
      before = redis.hget(j.send(:redis_key), 'last_enqueue_time')
      j.test_and_enque_for_time!(time)
      after = redis.hget(j.send(:redis_key), 'last_enqueue_time')
      enqueued << "#{poll}:#{j.last_time(time).to_i}" if after != before
    end
  end
  puts ['polls', esc(cron), average, list.join(','), enqueued.join(',')].join("\t")
end
