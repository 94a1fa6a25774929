#include "importrequest.h"

#include "megatron.h"
#include "nemo.h"
#include "slurmtopology.h"

namespace cs {

std::optional<SourceText> readGivenSource(const std::string& path, ImportReport& report)
{
    return path.empty() ? std::nullopt : readSource(path, report);
}

std::optional<nlohmann::json> importDescription(const ImportRequest& request, ImportReport& report)
{
    if (request.files.empty())
        return std::nullopt;
    if (request.kind == "megatron") {
        std::vector<SourceText> scripts;
        for (const std::string& f : request.files) {
            if (auto s = readGivenSource(f, report))
                scripts.push_back(std::move(*s));
        }
        const auto log = readGivenSource(request.log, report);
        if (scripts.size() != request.files.size() || (!request.log.empty() && !log))
            return std::nullopt;
        return importMegatron(scripts, log ? &*log : nullptr, report);
    }
    const auto file = readGivenSource(request.files.front(), report);
    if (!file)
        return std::nullopt;
    if (request.kind == "nemo")
        return importNemo(*file, report);
    if (request.kind != "slurm")
        return std::nullopt;
    const auto down = readGivenSource(request.down, report);
    if (!request.down.empty() && !down)
        return std::nullopt;
    return importSlurmTopology(*file, {request.gpu, request.gpusPerNode, down ? &*down : nullptr},
                               report);
}

} // namespace cs
