#include "design_fields.hpp"

namespace designs::detail {

namespace {

// PG302: up to 2048 queues, qid 0..2047.
constexpr uint64_t kMaxQid = 2047;

// qdma.stream_routes: [{"h2c": q, "c2h": q}], each C2H stream queue fed by one H2C queue at most.
pdt::Result<std::vector<QdmaStreamRoute>> parse_stream_routes(const Fields& f) {
    const RouteEnd<QdmaStreamRoute> c2h{"c2h", &QdmaStreamRoute::c2h, kMaxQid};
    auto routes = PDT_TRY(parse_route_objects<QdmaStreamRoute>(
        f, "stream_routes", "expected an array of {\"h2c\": queue, \"c2h\": queue}",
        {"h2c", &QdmaStreamRoute::h2c, kMaxQid}, c2h, c2h, "C2H stream queue"));
    if (routes.empty())
        return f.error("stream_routes", "an empty list; leave the field out when no H2C queue comes back on a C2H queue");
    return routes;
}

}  // namespace

// The QDMA Subsystem (PG302): its CSR BAR and, for a memory-mapped design, the card memory; for
// a streaming design what the fabric does between its stream queues.
pdt::Result<Qdma> parse_qdma(const Fields& f) {
    PDT_CHECK(f.only({"bar", "memory_base", "memory_size", "stream_routes", "stream_function"}));
    Qdma qdma;
    qdma.bar = static_cast<unsigned>(PDT_TRY(f.number("bar", 5)));
    qdma.memory_base = PDT_TRY(f.number_or("memory_base", UINT64_MAX, 0));
    qdma.memory_size = PDT_TRY(f.number_or("memory_size", UINT64_MAX, 0));
    if (f.has("memory_base") && qdma.memory_size == 0)
        return f.error("memory_base", "a memory base needs a memory_size above 0");
    if (f.has("stream_routes"))
        qdma.stream_routes = PDT_TRY(parse_stream_routes(f));
    if (f.has("stream_function")) {
        const std::string name = PDT_TRY(f.text("stream_function", true));
        if (qdma.stream_routes.empty())
            return f.error("stream_function", "a stream function needs stream_routes (the queues it joins)");
        if (name != to_string(StreamFunction::Loopback))
            return f.error("stream_function", "expected \"loopback\" (got \"" + name +
                                                  "\"): the only function the stream tools verify on QDMA queues");
    }
    return qdma;
}

// One physical function of a multi-function card (PG302: PF0..PF3).
pdt::Result<CardFunction> parse_card(const Fields& f) {
    PDT_CHECK(f.only({"name", "physical_function"}));
    CardFunction card;
    card.name = PDT_TRY(f.text("name", true));
    if (card.name.empty())
        return f.error("name", "a card name must not be empty");
    card.physical_function = static_cast<unsigned>(PDT_TRY(f.number("physical_function", 3)));
    return card;
}

// simulation.qdma: the capabilities the simulated QDMA reports (PG302: 1..4 PFs, up to 2048 queues).
pdt::Result<QdmaSimulation> parse_qdma_simulation(const Fields& f) {
    PDT_CHECK(f.only({"physical_functions", "queues", "stream", "memory_mapped"}));
    QdmaSimulation q;
    q.physical_functions = static_cast<unsigned>(PDT_TRY(f.number_or("physical_functions", 4, q.physical_functions)));
    if (q.physical_functions == 0)
        return f.error("physical_functions", "must be 1..4");
    q.queues = static_cast<unsigned>(PDT_TRY(f.number_or("queues", 2048, q.queues)));
    if (q.queues == 0)
        return f.error("queues", "must be 1..2048");
    for (auto [key, value] : {std::pair{"stream", &q.stream}, std::pair{"memory_mapped", &q.memory_mapped}})
        if (f.has(key))
            *value = PDT_TRY(f.boolean(key));
    return q;
}

}  // namespace designs::detail
