#include <iostream>

#include "clicommands.h"

int main(int argc, char** argv)
{
    return cs::cli::run(cs::cli::Args(argv + 1, argv + argc), {std::cout, std::cerr});
}
