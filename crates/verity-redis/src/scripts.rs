//! Lua scripts that make each document write atomic on the server: a reader
//! (`FT.SEARCH`, `JSON.GET`) never sees half a document, and counters stay exact.

/// Upsert one document.
///
/// `KEYS[1]` document JSON key, `KEYS[2]` index meta hash.
/// `ARGV`: 1 chunk key prefix, 2 uid, 3 content hash, 4 embed version (`""`:
/// none), 5 document JSON, 6 embed-hash key (`""`: none), 7 embed-hash value,
/// 8 number of chunks, 9 number of vectors, 10 chunking fingerprint (`""`:
/// none), 11 number of hashes, then per hash: its key suffix (`#<i>` for
/// chunk `i`, `#<i>~<j>` for its sentence vector `j`, from 1), the number of
/// field/value pairs, the pairs. The document JSON's `meta.sentences` lists
/// the sentence-vector count of each chunk, so that a replace or a delete
/// removes every hash of the document.
///
/// Returns 0 (unchanged), 1 (inserted) or 2 (replaced).
pub const UPSERT: &str = r#"
local old = redis.call('JSON.GET', KEYS[1], '$.meta')
local status = 1
local old_n, old_v = 0, 0
if old then
  local m = cjson.decode(old)[1]
  if m then
    local ev = m.embed_version
    if ev == nil or ev == cjson.null then ev = '' end
    local ck = m.chunking
    if ck == nil or ck == cjson.null then ck = '' end
    if m.content_hash == ARGV[3] and ev == ARGV[4] and ck == ARGV[10] then return 0 end
    old_n = tonumber(m.chunks) or 0
    old_v = tonumber(m.vectors) or 0
    local sv = m.sentences
    for i = 0, old_n - 1 do
      redis.call('DEL', ARGV[1] .. ARGV[2] .. '#' .. i)
      local c = 0
      if type(sv) == 'table' then c = tonumber(sv[i + 1]) or 0 end
      for j = 1, c do redis.call('DEL', ARGV[1] .. ARGV[2] .. '#' .. i .. '~' .. j) end
    end
    status = 2
  end
end
local n = tonumber(ARGV[8])
local h = tonumber(ARGV[11])
local pos = 12
for c = 1, h do
  local key = ARGV[1] .. ARGV[2] .. ARGV[pos]
  local nf = tonumber(ARGV[pos + 1])
  local args = {}
  for j = 1, 2 * nf do args[j] = ARGV[pos + 1 + j] end
  redis.call('HSET', key, unpack(args))
  pos = pos + 2 + 2 * nf
end
redis.call('JSON.SET', KEYS[1], '$', ARGV[5])
if ARGV[6] ~= '' then redis.call('SET', ARGV[6], ARGV[7]) end
if status == 1 then redis.call('HINCRBY', KEYS[2], 'documents', 1) end
redis.call('HINCRBY', KEYS[2], 'chunks', n - old_n)
redis.call('HINCRBY', KEYS[2], 'vectors', tonumber(ARGV[9]) - old_v)
redis.call('HINCRBY', KEYS[2], 'generation', 1)
return status
"#;

/// Delete one document. `KEYS[1]` document key, `KEYS[2]` meta hash;
/// `ARGV[1]` chunk key prefix, `ARGV[2]` uid, `ARGV[3]` embed-hash key (`""`: none).
/// Returns 1 when the document existed.
pub const DELETE: &str = r#"
local old = redis.call('JSON.GET', KEYS[1], '$.meta')
if not old then return 0 end
local m = cjson.decode(old)[1]
local n, v, sv = 0, 0, nil
if m then
  n = tonumber(m.chunks) or 0
  v = tonumber(m.vectors) or 0
  sv = m.sentences
end
for i = 0, n - 1 do
  redis.call('DEL', ARGV[1] .. ARGV[2] .. '#' .. i)
  local c = 0
  if type(sv) == 'table' then c = tonumber(sv[i + 1]) or 0 end
  for j = 1, c do redis.call('DEL', ARGV[1] .. ARGV[2] .. '#' .. i .. '~' .. j) end
end
redis.call('DEL', KEYS[1])
if ARGV[3] ~= '' then redis.call('DEL', ARGV[3]) end
redis.call('HINCRBY', KEYS[2], 'documents', -1)
redis.call('HINCRBY', KEYS[2], 'chunks', -n)
redis.call('HINCRBY', KEYS[2], 'vectors', -v)
redis.call('HINCRBY', KEYS[2], 'generation', 1)
return 1
"#;

/// Tagged, size-bounded cache write. `KEYS[1]` the key, `KEYS[2]` the
/// class's write-order sorted set, `KEYS[3]` the class's hash of entry
/// sizes, `KEYS[4]` the class's usage hash (`bytes`, `seq`); `ARGV`: 1 value,
/// 2 TTL in ms (`0`: none), 3 tag-set key prefix, 4 the class's limit in
/// bytes (`0`: none), 5 the entry's size, then the tags. Each tag set gets at
/// least the entry's TTL so that it expires with its last entry.
///
/// With a limit, the entry is recorded in the class's bookkeeping and, when
/// the class's bytes pass the limit, the oldest entries (first written) are
/// unlinked until it holds 7/8 of the limit. Entries that left by their TTL,
/// a tag or a prefix stay counted until their turn comes: the bytes counted
/// are never fewer than the bytes stored, so the bound holds.
/// Returns 1, or 0 when the entry is larger than the limit (not stored).
pub const CACHE_PUT: &str = r#"
local ttl = tonumber(ARGV[2])
local limit = tonumber(ARGV[4])
local size = tonumber(ARGV[5])
if limit > 0 and size > limit then return 0 end
if ttl > 0 then redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl) else redis.call('SET', KEYS[1], ARGV[1]) end
for i = 6, #ARGV do
  local t = ARGV[3] .. ARGV[i]
  redis.call('SADD', t, KEYS[1])
  local cur = redis.call('PTTL', t)
  if ttl == 0 then
    if cur > 0 then redis.call('PERSIST', t) end
  elseif cur >= 0 and cur < ttl then
    redis.call('PEXPIRE', t, ttl)
  elseif cur == -1 and redis.call('SCARD', t) == 1 then
    redis.call('PEXPIRE', t, ttl)
  end
end
if limit > 0 then
  local old = redis.call('HGET', KEYS[3], KEYS[1])
  if old then redis.call('HINCRBY', KEYS[4], 'bytes', -tonumber(old)) end
  local seq = redis.call('HINCRBY', KEYS[4], 'seq', 1)
  redis.call('ZADD', KEYS[2], seq, KEYS[1])
  redis.call('HSET', KEYS[3], KEYS[1], size)
  local total = redis.call('HINCRBY', KEYS[4], 'bytes', size)
  if total > limit then
    local target = limit - math.floor(limit / 8)
    while total > target do
      local popped = redis.call('ZPOPMIN', KEYS[2], 32)
      if #popped == 0 then break end
      local stop = false
      for i = 1, #popped, 2 do
        local k = popped[i]
        if k == KEYS[1] then
          redis.call('ZADD', KEYS[2], popped[i + 1], k)
          stop = true
        else
          local s = tonumber(redis.call('HGET', KEYS[3], k) or '0')
          redis.call('HDEL', KEYS[3], k)
          redis.call('UNLINK', k)
          total = redis.call('HINCRBY', KEYS[4], 'bytes', -s)
        end
      end
      if stop then break end
    end
  end
end
return 1
"#;
