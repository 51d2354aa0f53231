// A D3D9/D3D11 effect: the passes name what is compiled, and at which stage.
float4x4 gWorldViewProj;
float4 gTint;

struct VSOut
{
    float4 pos : POSITION;
    float2 uv : TEXCOORD0;
};

// Its signature looks like a vertex shader's, but no pass compiles it.
float4 DebugVS(float4 p : POSITION) : POSITION
{
    return p;
}

VSOut TransformVS(float4 p : POSITION, float2 uv : TEXCOORD0)
{
    VSOut o;
    o.pos = mul(p, gWorldViewProj);
    o.uv = uv;
    return o;
}

// Compiled with a literal argument for its uniform parameter; its result semantic is no
// stage's, so only the pass says it is a pixel shader.
float4 Shade(float2 uv : TEXCOORD0, uniform bool tinted) : TEXCOORD0
{
    return tinted ? gTint * uv.x : float4(uv, 0, 1);
}

technique Plain
{
    pass P0
    {
        VertexShader = compile vs_2_0 TransformVS();
        PixelShader = compile ps_2_0 Shade(false);
    }
}

technique11 Tinted
{
    pass P0
    {
        SetPixelShader(CompileShader(ps_5_0, Shade(true)));
    }
}
