"""A real editor: Neovim's built-in LSP client, headless, against `hlsllint server` on a shader.

Debian's neovim (0.7 on Debian 12) has no `vim.lsp.start` (0.8+); the test uses what every
version since 0.5 has, `vim.lsp.start_client` and `vim.lsp.buf_attach_client`, which is what
`vim.lsp.start` and `vim.lsp.enable` call. Diagnostics arrive, the quick fix is chosen through
`vim.lsp.buf.code_action` (its selection answered as a user would) and applied by Neovim, and
the hover shows the line's live registers. Skipped without `nvim` (`.ci/run` installs it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

NVIM = shutil.which("nvim")
pytestmark = pytest.mark.skipif(NVIM is None, reason="nvim is not installed (apt-get install neovim)")

SHADER = """\
// A separable blur pass: one row of the image per group.
Texture2D<float4> Source : register(t0);
RWTexture2D<float4> Target : register(u0);

cbuffer Params : register(b0)
{
    float2 InvSize;
    float Sharpen;
};

static const float Weights[5] = { 0.227027, 0.1945946, 0.1216216, 0.054054, 0.016216 };

float4 tap(int2 pixel, int offset)
{
    return Source.Load(int3(pixel + int2(offset, 0), 0));
}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int2 pixel = int2(id.xy);
    float4 sum = tap(pixel, 0) * Weights[0];
    [unroll]
    for (int i = 1; i < 5; ++i)
    {
        sum += (tap(pixel, i) + tap(pixel, -i)) * Weights[i];
    }
    float edge = sign(Sharpen) > 0 ? Sharpen : 0.0;
    Target[pixel] = lerp(sum, tap(pixel, 0), edge);
}
"""
FIX_LINE = 28  # 1-based: `sign(Sharpen) > 0`
HOVER_LINE = 22  # 1-based: `float4 sum = ...`

SCRIPT = r"""
local out = {}
local function codes()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(found, { code = code, line = d.lnum + 1, message = d.message })
  end
  return found
end
local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(SHADER))
  vim.bo.filetype = "hlsl"
  local id = vim.lsp.start_client({ name = "hlsllint", cmd = { HLSLLINT, "server" }, root_dir = ROOT })
  assert(id, "the client did not start")
  vim.lsp.buf_attach_client(0, id)
  assert(vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50), "no diagnostics")
  out.diagnostics = codes()

  -- The quick fix, as a user picks it from `vim.lsp.buf.code_action()`'s menu.
  vim.api.nvim_win_set_cursor(0, { FIX_LINE, 20 })
  local titles = {}
  vim.ui.select = function(items, _, choose)
    for i, item in ipairs(items) do
      local action = item.action or item[2]
      table.insert(titles, action.title)
      if action.title:match("^HL105: Replace") then
        return choose(item, i)
      end
    end
    choose(nil, nil)
  end
  vim.lsp.buf.code_action()
  local before = vim.api.nvim_buf_get_lines(0, FIX_LINE - 1, FIX_LINE, true)[1]
  vim.wait(30000, function()
    return vim.api.nvim_buf_get_lines(0, FIX_LINE - 1, FIX_LINE, true)[1] ~= before
  end, 50)
  out.titles = titles
  out.fixed_line = vim.api.nvim_buf_get_lines(0, FIX_LINE - 1, FIX_LINE, true)[1]
  vim.wait(30000, function()
    for _, d in ipairs(codes()) do
      if d.code == "HL105" then return false end
    end
    return true
  end, 50)
  out.after_fix = codes()

  -- Hover on a line of the entry point.
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(),
    position = { line = HOVER_LINE - 1, character = 4 },
  }
  local replies = vim.lsp.buf_request_sync(0, "textDocument/hover", params, 30000) or {}
  for _, reply in pairs(replies) do
    if reply.result then out.hover = reply.result.contents.value end
  end
  vim.lsp.stop_client(id)
end)
if not ok then out.error = tostring(err) end
vim.fn.writefile({ vim.fn.json_encode(out) }, OUT)
vim.cmd("qall!")
"""


def run_neovim(tmp_path: Path) -> dict[str, Any]:
    shader = tmp_path / "blur.hlsl"
    shader.write_text(SHADER, encoding="utf-8")
    (tmp_path / "hlsllint.toml").write_text('select = ["HL"]\n', encoding="utf-8")
    out = tmp_path / "out.json"
    hlsllint = Path(sys.executable).with_name("hlsllint")
    header = "".join(
        f"local {name} = {json.dumps(str(value))}\n"
        for name, value in (("SHADER", shader), ("ROOT", tmp_path), ("HLSLLINT", hlsllint), ("OUT", out))
    )
    script = tmp_path / "drive.lua"
    script.write_text(
        header + f"local FIX_LINE = {FIX_LINE}\nlocal HOVER_LINE = {HOVER_LINE}\n" + SCRIPT, encoding="utf-8"
    )
    assert NVIM is not None
    subprocess.run(
        [NVIM, "--headless", "--clean", "-n", "-u", "NONE", "-c", f"luafile {script}"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=180,
        check=False,
    )
    assert out.exists(), "Neovim wrote no result"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def test_neovim_lsp_client(tmp_path: Path) -> None:
    result = run_neovim(tmp_path)
    assert "error" not in result, result.get("error")
    assert {"code": "HL105", "line": FIX_LINE} in [
        {"code": d["code"], "line": d["line"]} for d in result["diagnostics"]
    ], result["diagnostics"]
    assert "HL105: Replace with `Sharpen > 0`" in result["titles"], result["titles"]
    assert result["fixed_line"] == "    float edge = Sharpen > 0 ? Sharpen : 0.0;"
    assert "HL105" not in [d["code"] for d in result["after_fix"]]
    assert "**Live registers** in `main`" in result["hover"] and "VGPRs" in result["hover"], result["hover"]
