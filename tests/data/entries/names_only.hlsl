// No attribute and no semantic anywhere: the name picks the entry point (`main`), never the
// helper it calls, nor a function whose signature no entry point can have.
RWStructuredBuffer<uint> gCounter : register(u0);

uint Bump()
{
    uint old;
    InterlockedAdd(gCounter[0], 1, old);
    return old;
}

uint GetBaseVertex()
{
    return gCounter[1];
}

void main()
{
    Bump();
}
