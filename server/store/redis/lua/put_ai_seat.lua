-- KEYS: AI seats hash. ARGV: player, new record, the record it must replace, whether
-- there is one to replace ('1'/'0'), the most seats a new record may make (-1: any).
local current = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[4] == '1' and current and current ~= ARGV[3] then
  return 0
end
local within = tonumber(ARGV[5])
if not current and within >= 0 and redis.call('HLEN', KEYS[1]) >= within then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
