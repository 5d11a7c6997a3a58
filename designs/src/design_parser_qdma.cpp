#include "design_fields.hpp"

namespace designs::detail {

// The QDMA Subsystem (PG302): its CSR BAR and, for a memory-mapped design, the card memory.
vfio::Result<Qdma> parse_qdma(const Fields& f) {
    PDT_CHECK(f.only({"bar", "memory_base", "memory_size"}));
    Qdma qdma;
    qdma.bar = static_cast<unsigned>(PDT_TRY(f.number("bar", 5)));
    qdma.memory_base = PDT_TRY(f.number_or("memory_base", UINT64_MAX, 0));
    qdma.memory_size = PDT_TRY(f.number_or("memory_size", UINT64_MAX, 0));
    if (f.has("memory_base") && qdma.memory_size == 0)
        return f.error("memory_base", "a memory base needs a memory_size above 0");
    return qdma;
}

// One physical function of a multi-function card (PG302: PF0..PF3).
vfio::Result<CardFunction> parse_card(const Fields& f) {
    PDT_CHECK(f.only({"name", "physical_function"}));
    CardFunction card;
    card.name = PDT_TRY(f.text("name", true));
    if (card.name.empty())
        return f.error("name", "a card name must not be empty");
    card.physical_function = static_cast<unsigned>(PDT_TRY(f.number("physical_function", 3)));
    return card;
}

// simulation.qdma: the capabilities the simulated QDMA reports (PG302: 1..4 PFs, up to 2048 queues).
vfio::Result<QdmaSimulation> parse_qdma_simulation(const Fields& f) {
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
