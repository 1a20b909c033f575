-- KEYS: beat hash. ARGV: now, gap. The beat only moves forward; a gap longer than `gap`
-- since the previous beat is recorded as the latest outage. Returns the latest outage.
local now = tonumber(ARGV[1])
local previous = tonumber(redis.call('HGET', KEYS[1], 'beat') or '')
if previous == nil or now > previous then
  redis.call('HSET', KEYS[1], 'beat', ARGV[1])
end
if previous ~= nil and now - previous > tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'start', previous, 'end', ARGV[1])
end
return redis.call('HMGET', KEYS[1], 'start', 'end')
