// Start-up: from launching the application with a file until the first frame that shows it is
// on screen, in a 1920x1080 screen (the offscreen platform given a screen of that size), the
// median of several starts, each with a home of its own (no settings, nothing to recover).
// Baseline in the same run: the smallest sample, 64 GPUs, whose start is nearly all Qt's and
// the window's. Each start also gives the CPU time of the process and of its GUI thread until
// that frame: on an idle machine with a core to spare the wall time is about the GUI thread's
// (workers run beside it), and CPU times vary less than the wall clock on a loaded machine.
//
// Usage: bench_startup [starts]   (default 7)

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

struct Start {
    double wallMs = 0;
    double cpuMs = 0;
    double guiCpuMs = 0;
};

long long monotonicNs()
{
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1'000'000'000LL + t.tv_nsec;
}

std::string freshDir()
{
    char dir[] = "/tmp/bench_startup.XXXXXX";
    if (!mkdtemp(dir)) {
        std::perror("mkdtemp");
        std::exit(1);
    }
    return dir;
}

std::string screenConfig(const std::string& dir)
{
    const std::string path = dir + "/screen.json";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        std::exit(1);
    std::fputs("{ \"screens\": [ { \"name\": \"bench\", \"x\": 0, \"y\": 0, \"width\": 1920, "
               "\"height\": 1080, \"logicalDpi\": 96, \"logicalBaseDpi\": 96, "
               "\"dpr\": 1 } ] }\n",
               f);
    std::fclose(f);
    return path;
}

Start startOnce(const std::string& file, const std::string& screen)
{
    const std::string home = freshDir();
    int out[2];
    if (pipe(out) != 0)
        std::exit(1);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        if (const int quiet = open("/dev/null", O_WRONLY); quiet >= 0)
            dup2(quiet, STDERR_FILENO); // Qt's notes on the offscreen platform
        setenv("HOME", home.c_str(), 1);
        for (const char* xdg : {"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"})
            unsetenv(xdg);
        setenv("XDG_RUNTIME_DIR", home.c_str(), 1);
        setenv("QT_QPA_PLATFORM", ("offscreen:configfile=" + screen).c_str(), 1);
        setenv("CLUSTERSCOPE_FIRST_FRAME_SINCE", std::to_string(monotonicNs()).c_str(), 1);
        execl(CS_APP_PATH, CS_APP_PATH, file.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(out[1]);
    std::string text;
    char buffer[256];
    for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) > 0;)
        text.append(buffer, size_t(n));
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    std::system(("rm -rf '" + home + "'").c_str());
    Start s;
    const size_t at = text.find("first frame: ");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || at == std::string::npos ||
        std::sscanf(text.c_str() + at,
                    "first frame: %lf ms; CPU %lf ms, of it the GUI thread's %lf", &s.wallMs,
                    &s.cpuMs, &s.guiCpuMs) != 3) {
        std::fprintf(stderr, "the application did not report its first frame: %s\n", text.c_str());
        std::exit(1);
    }
    return s;
}

double median(std::vector<double> v)
{
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

Start medianStart(const char* sample, int starts, const std::string& screen)
{
    std::vector<double> wall, cpu, gui;
    for (int i = 0; i < starts; ++i) {
        const Start s = startOnce(std::string(CS_SAMPLES_DIR "/") + sample, screen);
        wall.push_back(s.wallMs);
        cpu.push_back(s.cpuMs);
        gui.push_back(s.guiCpuMs);
    }
    return {median(wall), median(cpu), median(gui)};
}

void print(const char* what, const Start& m)
{
    std::printf("%-34s %5.0f ms %7.0f ms %8.0f ms", what, m.wallMs, m.cpuMs, m.guiCpuMs);
}

} // namespace

int main(int argc, char** argv)
{
    const int starts = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
    const std::string configDir = freshDir();
    const std::string screen = screenConfig(configDir);
    std::printf("start to the first frame that shows the file, 1920x1080, median of %d starts\n",
                starts);
    std::printf("%-34s %8s %10s %11s\n", "", "wall", "CPU", "GUI thread");
    const Start base = medianStart("ndv5-h200-64-gpt3-175b.run.json", starts, screen);
    print("baseline: 64 GPUs (ND H200)", base);
    std::printf("\n");
    for (const char* sample :
         {"fairwater-gb200-128.csession", "ndv5-h100-1344-gpt3-175b.csession"}) {
        const Start m = medianStart(sample, starts, screen);
        print(sample, m);
        std::printf("  (GUI thread %.2fx the baseline's)\n", m.guiCpuMs / base.guiCpuMs);
    }
    std::system(("rm -rf '" + configDir + "'").c_str());
    return 0;
}
