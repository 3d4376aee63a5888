local json = require("json")

local M = {}

local function helper(x)
  return x * 2
end

function M.run(args)
  return helper(#args)
end

function M:method()
  return self.name
end

function global_fn(a, b)
  return a + b
end

return M
