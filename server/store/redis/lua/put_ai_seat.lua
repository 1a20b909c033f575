-- KEYS: AI seats hash. ARGV: player, new record, the record it must replace.
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current and current ~= ARGV[3] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
