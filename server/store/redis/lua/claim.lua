-- KEYS: deadline index. ARGV: room, score seen, action, new score.
-- "claim": lease it if still due. "move": re-file it if nobody touched it since we
-- looked. "drop": remove it under the same condition (its room is gone).
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not current then
  return 0
end
current = tonumber(current)
if ARGV[3] == 'claim' then
  if current <= tonumber(ARGV[2]) then
    redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
    return 1
  end
  return 0
end
if current ~= tonumber(ARGV[2]) then
  return 0
end
if ARGV[3] == 'drop' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
end
return 0
